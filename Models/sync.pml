/*
 * ShareLog's sync protocol (docs/SYNC.md "Pull", "Snapshot", "Identity"),
 * one direction: a receiver (the puller, a replica with its store) pulls
 * the log of a sender (the server). Checked with spin by Scripts/modelcheck;
 * docs/RELIABILITY.md "The protocol, model-checked" says what is modelled,
 * what is abstracted away, and how each name maps to the Swift code.
 *
 * The phase variables take the names of the Swift state machines' phases
 * (EventReceiver.Phase, EventSender.Phase, ServerHandshake.Phase), so a
 * counterexample trail reads in the code's words.
 *
 * Compile-time knobs (spin -D...):
 *   SESSIONS  sessions at once between the pair (1 or 2)   default 1
 *   FAULTS    fault budget: crashes, restores, cuts         default 2
 *   WRITES    events the sender makes                       default 2
 *   PROP_A/B/C/D/E  which assertions are on                 default all
 *   MUTANT_*    deliberate breaks (Scripts/modelcheck --mutants)
 *   RAWCHANNEL  a transport that drops, duplicates and reorders single
 *               messages inside a session (not TCP, a pipe or a socket)
 */

#ifndef SESSIONS
#define SESSIONS 1
#endif
#ifndef FAULTS
#define FAULTS 2
#endif
#ifndef WRITES
#define WRITES 2
#endif
#if !defined(PROP_A) && !defined(PROP_B) && !defined(PROP_C) && !defined(PROP_D) && !defined(PROP_E)
#define PROP_A
#define PROP_B
#define PROP_C
#define PROP_D
#define PROP_E
#endif

/* Event ids 1..WRITES are the sender's own events; RID is one event of the
   receiver's own origin that the sender holds (the receiver pushed it
   earlier), so batches skip it and `through` moves past it. The writer
   always makes a fresh id; that a restored store never makes again an id
   its peers hold (docs/SYNC.md "Identity") is property (e), checked where
   it could break: a restore that keeps the replica id. */
#define RID (WRITES + 1)
#define NID (WRITES + 2)
#define MAXLOG (WRITES + 1)
/* EventSender.window */
#define WINDOW 2
#define NONE 255

mtype:msg = { HELLO, WELCOME, ACCEPTED, PULL, BATCH, ACK, CAUGHTUP, SNAPREQD, SNAPREQ, SNAPBATCH, SNAPEND, ERR, BYE };
mtype:phases = { starting, pulling, following, snapshot, done, awaitingHello, waitingForPull, streaming, refused };

/* ---- the sender's store: durable ---- */
byte slog[MAXLOG + 1];  /* slog[p]: the event id at log position p, 1..slast */
byte slast;             /* ShareStore.lastPosition() */
byte sident = 1;        /* replica id (a generation number) */
byte sepoch = 1;        /* epoch */
byte smade;             /* originCounter(): the highest own id made under sident */
byte egen[NID];         /* the replica id (generation) each event was made under */
byte smark;             /* the high-water file: the highest position of epoch
                           sepoch that may have left the store (raised by every
                           read that sends; the log's end after a renewal) */
byte written;           /* own events made so far */
bit rpushed;            /* the receiver's own event is in the sender's log */

/* ---- the receiver's store: durable; events and cursor commit together ---- */
bit held[NID];          /* eventIndex: the ids the store holds */
byte appliedCount[NID]; /* how often apply wrote each id (property b) */
byte cident;            /* the cursor on the sender: keyed by its replica id (0: none), */
byte cepoch;            /* the epoch it belongs to, */
byte cpos;              /* and the position in the sender's log */

/* ---- process incarnations: a crash bumps one, and every session thread
   of that process stops where it is, losing its volatile state ---- */
byte rgen, sgen;
byte budget = FAULTS;

/* ---- connections: one per session slot ---- */
chan toS[SESSIONS] = [3] of { mtype:msg, byte, byte, byte, byte };
chan toR[SESSIONS] = [3] of { mtype:msg, byte, byte, byte, byte };
bit cdead[SESSIONS];    /* the client's end is closed (or never opened) */
bit sdead[SESSIONS];    /* the server's end is closed */
bit sidle[SESSIONS];    /* the server's session thread is not running */
bit cut[SESSIONS];      /* the connection broke: in-flight messages are lost */

/* every event of the sender's log is held by the receiver (property d) */
bit converged;
/* scratch for the assertions of properties (a) and (c), so that a
   violation names its property; set and read within one atomic step */
hidden byte caughtUpHeld, cursorHeld, keptHeld;

/* Recomputes `converged` and checks property (c) after every change to
   either store: within the epoch and replica id it belongs to, the cursor
   never points past an event the receiver does not hold. */
inline recheck() {
    converged = 1;
    q = 1;
    do
    :: q <= slast ->
        if
        :: !held[slog[q]] -> converged = 0
        :: else
        fi;
        q++
    :: else -> break
    od;
#ifdef PROP_C
    if
    :: cident == sident && cepoch == sepoch ->
        q = 1;
        do
        :: q <= cpos && q <= slast -> cursorHeld = held[slog[q]]; assert(cursorHeld); q++
        :: else -> break
        od
    :: else
    fi;
#endif
    q = 0
}

/* ShareStore.apply: one event, skipped when it is the store's own or
   already held (eventIndex). Property (b) is the assertion. */
inline applyEvent(e) {
    if
    :: e == 0 || e == RID -> skip
#ifndef MUTANT_NODEDUPE
    :: e != 0 && e != RID && held[e] -> skip
    :: e != 0 && e != RID && !held[e] ->
#else
    :: e != 0 && e != RID ->
#endif
        held[e] = 1;
        appliedCount[e]++;
#ifdef PROP_B
        assert(appliedCount[e] <= 1)
#endif
    fi
}

/* ShareStore.advance: the cursor of a replica id; within one epoch it never
   moves back, a new epoch (or another replica id) replaces it. */
inline advance(i, ep, p) {
    if
    :: cident == i && cepoch == ep -> if :: p > cpos -> cpos = p :: else fi
    :: else -> cident = i; cepoch = ep; cpos = p
    fi
}

/* ShareStore.apply(_:resetting:): a snapshot's end replaces the cursor even
   when it is behind it within one epoch (the snapshot holds the sender's
   whole log up to it, so going back loses nothing). */
inline reset(i, ep, p) {
    cident = i; cepoch = ep; cpos = p
}

/* The log entries after `from`, at most `n` of them, as `run` reads them:
   the receiver's own event skipped, `through` moved past it all the same. */
inline readRun(from, n) {
    through = from + n;
    if :: through > slast -> through = slast :: else fi;
    e1 = 0; e2 = 0;
    if :: from + 1 <= through && slog[from + 1] != RID -> e1 = slog[from + 1] :: else fi;
    if :: from + 2 <= through && slog[from + 2] != RID -> e2 = slog[from + 2] :: else fi;
    last = slast
}

/* ShareStore.raiseHighWater: before a read's positions leave the sender,
   its high-water file records the log's end (`last`, read in the same
   step). */
inline raiseMark() {
    if :: last > smark -> smark = last :: else fi
}

/* ---- the sender's store keeps changing: its own events, and the receiver's
   event arriving by push ---- */
active proctype Writer() {
    byte q;
end_writing:
    do
    :: d_step { written < WRITES && slast < MAXLOG ->
        written++; slast++; slog[slast] = written; egen[written] = sident; smade = written; recheck() }
    :: d_step { !rpushed && slast < MAXLOG ->
        rpushed = 1; slast++; slog[slast] = RID; recheck() }
    od
}

/* ---- faults, at most FAULTS of them; then none ---- */
active proctype Faults() {
    byte q, k, s;
#ifdef RAWCHANNEL
    mtype:msg m;
    byte a, b, c, d;
#endif
    do
    :: budget > 0 -> atomic { budget--; rgen++ }    /* the receiver's process is killed and restarts */
    :: budget > 0 -> atomic { budget--; sgen++ }    /* the server's process is killed and restarts */
    :: budget > 0 ->                                /* the server is restored from an older copy */
        atomic {
            budget--;
            sgen++;
            k = 0;
            do :: k < slast -> k++ :: break od;     /* the copy holds the log up to k */
            s = 0;                                  /* 1: the restored store keeps its replica id */
            if
            :: sident++; sepoch++; smade = 0; smark = k   /* a whole directory: new replica id and epoch when it opens */
            :: sepoch++; smark = k                  /* a store with the same id at another epoch (epochUnknown) */
#ifndef MUTANT_NOSIGN
            :: k < smark ->                         /* data.mdb overwritten in place, its log behind the high-water */
                sident++; sepoch++; smade = 0; smark = k  /* mark: new replica id and epoch when it opens */
#else
            :: k < smark -> s = 1                   /* the high-water mark ignored: same id and epoch */
#endif
            :: k >= smark -> s = 1                  /* data.mdb overwritten in place, not behind the mark: same id and epoch */
            fi;
#ifdef PROP_E
            /* (e) a restore that keeps the replica id cuts no event of that
               id a peer holds: the store's origin counter is then at least
               every counter its peers hold, and it never makes one of their
               ids again */
            if
            :: s ->
                q = k + 1;
                do :: q <= slast -> keptHeld = !(held[slog[q]] && egen[slog[q]] == sident); assert(keptHeld); q++ :: else -> break od
            :: else
            fi;
#endif
            s = 0;
            slast = k;
            q = k + 1;
            do :: q <= MAXLOG -> if :: slog[q] == RID -> rpushed = 0 :: else fi; slog[q] = 0; q++ :: else -> break od;
            /* the copy's origin counter: the highest own event in its log */
            if
            :: smade > 0 ->
                smade = 0; q = 1;
                do :: q <= slast -> if :: slog[q] != RID && egen[slog[q]] == sident -> smade = slog[q] :: else fi; q++ :: else -> break od
            :: else
            fi;
            recheck()
        }
    :: budget > 0 ->                                /* a connection breaks: what is in flight is lost */
        atomic {
            budget--;
            s = 0;
            do :: s < SESSIONS - 1 -> s++ :: break od;
            cut[s] = 1;
            do :: toS[s]?_,_,_,_,_ :: toR[s]?_,_,_,_,_ :: empty(toS[s]) && empty(toR[s]) -> break od
        }
#ifdef RAWCHANNEL
    :: budget > 0 -> atomic { budget--; s = 0; do :: s < SESSIONS - 1 -> s++ :: break od;
        if :: toR[s]?_,_,_,_,_ :: toS[s]?_,_,_,_,_ fi }             /* one message lost, the rest delivered */
    :: budget > 0 -> atomic { budget--; s = 0; do :: s < SESSIONS - 1 -> s++ :: break od;
        if :: toR[s]?m,a,b,c,d -> toR[s]!m,a,b,c,d :: toS[s]?m,a,b,c,d -> toS[s]!m,a,b,c,d fi }  /* moved to the back */
    :: budget > 0 -> atomic { budget--; s = 0; do :: s < SESSIONS - 1 -> s++ :: break od;
        if :: nfull(toR[s]) -> toR[s]?<m,a,b,c,d>; toR[s]!m,a,b,c,d fi }  /* delivered twice */
#endif
    :: break                                        /* no more faults, from here on */
    od
}

/* ---- the receiving side: ClientHandshake, EventReceiver, and the client's
   SessionRunner carrying out their actions ----
   A session thread's own computation is invisible to the other processes,
   so each message is handled in one atomic step up to its next send or
   commit; a crash may fall between any two such steps, in particular
   between a batch's commit and its ack. */
proctype Receiver(byte s) {
    byte g, ident, peerEpoch, epoch, position, heldOfPeer, q, a, b, c;
    bit follow, snapshotTaken;
    mtype:phases phase;
end_idle:
    do
    :: atomic {
        cdead[s] && sidle[s] ->                     /* the last connection is fully closed */
        do :: toS[s]?_,_,_,_,_ :: toR[s]?_,_,_,_,_ :: empty(toS[s]) && empty(toR[s]) -> break od;
        cdead[s] = 0; sdead[s] = 0; cut[s] = 0;
        g = rgen;
        phase = starting;
        toS[s]!HELLO,0,0,0,0
       }
        {
            /* ClientHandshake: hello out, welcome and accepted in (protocol
               2; a keyless server, so no proof; the client's own restore
               check on accepted's heldOfYou is not modelled); then
               SessionRunner.init reads the cursor and heldOfPeer from the
               store, and EventReceiver.start sends the first pull */
            atomic {
                toR[s]?WELCOME,ident,peerEpoch,_,_;
                toR[s]?ACCEPTED,_,_,_,_;
                if
                :: cident == ident -> epoch = cepoch; position = cpos
                :: else -> epoch = 0; position = 0
                fi;
                heldOfPeer = 0; q = 1;
                do :: q <= WRITES -> if :: held[q] && egen[q] == ident -> heldOfPeer = q :: else fi; q++ :: else -> break od;
                q = 0;
                if :: follow = 0 :: follow = 1 fi;
                phase = pulling;
#ifdef MUTANT_OFFBYONE
                toS[s]!PULL,epoch,position + 1,follow,heldOfPeer
#else
                toS[s]!PULL,epoch,position,follow,heldOfPeer
#endif
            };
end_receiving:
            do
            :: atomic {
                toR[s]?BATCH,a,b,c,_ ->             /* batch(through: a, events: b c) */
#ifdef MUTANT_ACKFIRST
                toS[s]!ACK,a,0,0,0                  /* acknowledged before the commit */
               }
               atomic {
#endif
                if
                :: (phase == pulling || phase == following) && a >= position ->
                    position = a;
                    if :: epoch == 0 -> epoch = peerEpoch :: else fi;
#ifdef MUTANT_CURSORFIRST
                    advance(ident, epoch, a); recheck()     /* the cursor in a transaction of its own, first */
#else
                    /* ShareStore.apply(_:advancing:): events and cursor in one transaction */
                    applyEvent(b); applyEvent(c); advance(ident, epoch, a); recheck();
                    b = 0; c = 0
#endif
                :: else -> goto failed              /* cursorMovedBack, or unexpected */
                fi
               }
#ifdef MUTANT_CURSORFIRST
               atomic { applyEvent(b); applyEvent(c); recheck(); b = 0; c = 0 }   /* then the events */
#endif
#ifndef MUTANT_ACKFIRST
               atomic { toS[s]!ACK,a,0,0,0; a = 0 }  /* only after the commit */
#endif
            :: atomic {
                toR[s]?CAUGHTUP,a,_,_,_ ->
                if
                :: phase == pulling || phase == following ->
#ifdef PROP_A
                    /* (a) no loss: caught up means every event the sender's
                       log held up to `a` is held here (within that log's
                       replica id and epoch) */
                    if
                    :: ident == sident && (epoch == sepoch || epoch == 0 && peerEpoch == sepoch) ->
                        q = 1;
                        do :: q <= a && q <= slast -> caughtUpHeld = held[slog[q]]; assert(caughtUpHeld); q++ :: else -> break od;
                        q = 0
                    :: else
                    fi;
#endif
                    if
                    :: epoch == 0 || a > position ->
                        if :: epoch == 0 -> epoch = peerEpoch :: else fi;
                        if :: a > position -> position = a :: else fi;
                        advance(ident, epoch, position); recheck()
                    :: else
                    fi;
                    a = 0;
                    if
                    :: follow -> phase = following
                    :: else -> phase = done; break
                    fi
                :: else -> goto failed
                fi
               }
            :: atomic {
                toR[s]?SNAPREQD,_,_,_,_ ->
                if
#ifdef MUTANT_NOSNAPSHOT
                :: true -> goto failed              /* ends the session instead of asking for the snapshot */
#endif
                :: (phase == pulling || phase == following) && !snapshotTaken ->
                    snapshotTaken = 1;
                    phase = snapshot;
                    toS[s]!SNAPREQ,0,0,0,0
                :: else -> goto failed              /* snapshotLoop, or unexpected */
                fi
               }
            :: atomic {
                toR[s]?SNAPBATCH,b,c,_,_ ->
                if
                :: phase == snapshot -> applyEvent(b); applyEvent(c); recheck(); b = 0; c = 0
                :: else -> goto failed
                fi
               }
            :: atomic {
                toR[s]?SNAPEND,a,b,_,_ ->           /* snapshotEnd(resumeAfter: a, epoch: b) */
                if
                :: phase == snapshot ->
                    epoch = b; position = a; phase = pulling; a = 0; b = 0;
                    reset(ident, epoch, position); recheck()
                :: else -> goto failed
                fi
               }
               toS[s]!PULL,epoch,position,follow,heldOfPeer
            :: toR[s]?ERR,_,_,_,_ -> goto failed
            :: toR[s]?BYE,_,_,_,_ -> goto failed
            :: toR[s]?HELLO,_,_,_,_ -> goto failed
            :: toR[s]?WELCOME,_,_,_,_ -> goto failed
            :: toR[s]?ACCEPTED,_,_,_,_ -> goto failed
            :: toR[s]?PULL,_,_,_,_ -> goto failed
            :: toR[s]?ACK,_,_,_,_ -> goto failed
            :: toR[s]?SNAPREQ,_,_,_,_ -> goto failed
            od;
            /* the direction is done, so is the session: bye */
            toS[s]!BYE,0,0,0,0;
failed:
            skip
        } unless { g != rgen || cut[s] || sdead[s] && empty(toR[s]) };
        atomic { cdead[s] = 1; phase = 0; ident = 0; peerEpoch = 0; epoch = 0; position = 0; heldOfPeer = 0;
                 follow = 0; snapshotTaken = 0; a = 0; b = 0; c = 0; q = 0 }
    od
}

/* ---- the sending side: ServerHandshake, EventSender, and the server's
   SessionRunner carrying out their actions. Reading the log is one read
   transaction; the sender writes nothing durable except a renewed
   identity, so each handler is one atomic step up to a blocking send. ---- */
proctype Sender(byte s) {
    byte g, epoch, after, sentThrough, ackedThrough, unacknowledged, caughtUpSent, upTo, through, last, e1, e2, a, b, c, d, q;
    bit follow;
    mtype:phases phase;
end_idle:
    do
    :: atomic {
        !cdead[s] && toS[s]?[HELLO,_,_,_,_] ->
        toS[s]?HELLO,_,_,_,_; sidle[s] = 0; g = sgen;
        /* ServerHandshake: awaitingHello -> admitting -> established (no
           key, so no awaitingProof): the welcome, then accepted */
        phase = awaitingHello;
        toR[s]!WELCOME,sident,sepoch,0,0;
        toR[s]!ACCEPTED,0,0,0,0;
        caughtUpSent = NONE;
        phase = waitingForPull
       }
        {
end_sending:
            do
            :: atomic {
                toS[s]?PULL,a,b,c,d ->              /* pull(knownEpoch: a, after: b, follow: c, heldOfYou: d) */
                if
                :: phase != waitingForPull -> goto failed
                :: phase == waitingForPull && d > smade ->
                    /* SessionMachine.claimChecked: a claim to more of this
                       store's own events than it made is refused with
                       nothing sent, and the replica id kept (UnmadeEventsClaim);
                       with the high-water file, only the model's "same id,
                       another epoch" restore (which the engine never makes:
                       it renews id and epoch together) and the NOSIGN mutant
                       reach it; the properties hold with the refusal */
                    toR[s]!ERR,0,0,0,0;
                    goto failed
                :: phase == waitingForPull && d <= smade ->
                    epoch = a; after = b; sentThrough = b; ackedThrough = b; follow = c;
                    a = 0; b = 0; c = 0; d = 0;
                    phase = streaming;
                    goto nextRead
                fi
               }
            :: atomic {
                toS[s]?ACK,a,_,_,_ ->
                if
                :: a > sentThrough -> goto failed   /* ackBeyondSent */
                :: else
                fi;
                if :: a > ackedThrough -> ackedThrough = a :: else fi;
                if :: unacknowledged > 0 -> unacknowledged-- :: else fi;
                a = 0;
                goto nextRead
               }
            :: atomic {
                toS[s]?SNAPREQ,_,_,_,_ ->
                if
                :: phase == refused -> phase = snapshot; upTo = NONE; after = 0
                :: else -> goto failed
                fi
               }
                do
                :: atomic {
                    /* readSnapshot: the log after `after`, as it is now */
                    if :: readRun(after, 1) :: readRun(after, 2) fi;
                    epoch = sepoch;
                    raiseMark();
                    if :: upTo == NONE -> upTo = last :: else fi;
                    if :: e1 != 0 || e2 != 0 -> toR[s]!SNAPBATCH,e1,e2,0,0 :: else fi;
                    e1 = 0; e2 = 0; last = 0;
                    if
                    :: through >= upTo ->
                        phase = waitingForPull; caughtUpSent = NONE; after = 0; through = 0;
                        toR[s]!SNAPEND,upTo,epoch,0,0;
                        upTo = 0;
                        break
                    :: else -> after = through; through = 0
                    fi
                   }
                od
#ifndef MUTANT_NOWAKE
            :: atomic { phase == following && slast > after -> phase = streaming; goto nextRead }  /* committed(_:) */
#endif
            :: toS[s]?BYE,_,_,_,_ -> break
            :: toS[s]?HELLO,_,_,_,_ -> goto failed
            :: toS[s]?WELCOME,_,_,_,_ -> goto failed
            :: toS[s]?BATCH,_,_,_,_ -> goto failed
            :: toS[s]?CAUGHTUP,_,_,_,_ -> goto failed
            :: toS[s]?SNAPREQD,_,_,_,_ -> goto failed
            :: toS[s]?SNAPBATCH,_,_,_,_ -> goto failed
            :: toS[s]?SNAPEND,_,_,_,_ -> goto failed
            :: toS[s]?ERR,_,_,_,_ -> goto failed
            od;
            goto failed;
nextRead:   /* EventSender.nextRead and read(_:): batches while the window has room */
            do
            :: atomic {
                phase == streaming && unacknowledged < WINDOW ->
                /* ShareStore.replicationBatch(after:inEpoch:): one read transaction;
                   maxBatchBytes lets one or two entries through */
                if
                :: epoch != 0 && epoch != sepoch -> last = NONE     /* epochUnknown */
                :: (epoch == 0 || epoch == sepoch) && after > slast -> last = NONE  /* cursorAhead */
                :: else ->
                    if :: readRun(after, 1) :: readRun(after, 2) fi;
                    epoch = sepoch;
                    raiseMark()
                fi;
                if
                :: last == NONE ->
                    phase = refused; last = 0;
                    toR[s]!SNAPREQD,sepoch,0,0,0;
                    break
                :: else
                fi;
                if
                :: through > after || e1 != 0 || e2 != 0 ->
                    toR[s]!BATCH,through,e1,e2,0;
                    after = through; sentThrough = through; unacknowledged++
                :: else
                fi;
                e1 = 0; e2 = 0;
                if
                :: through >= last ->
                    if :: caughtUpSent != last -> caughtUpSent = last; toR[s]!CAUGHTUP,last,0,0,0 :: else fi;
                    if :: follow -> phase = following :: else -> phase = done fi;
                    through = 0; last = 0;
                    break
                :: else -> through = 0; last = 0
                fi
               }
            :: else -> break
            od;
            goto end_sending;
failed:
            skip
        } unless { g != sgen || cdead[s] || cut[s] };
        atomic { sdead[s] = 1; sidle[s] = 1; phase = 0; epoch = 0; after = 0; sentThrough = 0; ackedThrough = 0;
                 unacknowledged = 0; caughtUpSent = 0; upTo = 0; through = 0; last = 0; e1 = 0; e2 = 0;
                 a = 0; b = 0; c = 0; d = 0; follow = 0 }
    od
}

/* (d), the finite half: once nothing can move (the faults are over and
   every session waits), the receiver holds the sender's whole log. The
   loop also lets a blocked system stutter, so that the liveness run, whose
   weak fairness ignores runs that just stop, sees a stuck system as a
   cycle too. */
active proctype Quiescence() {
end_quiet:
    do
#ifdef PROP_D
    :: timeout -> assert(converged)
#else
    :: timeout -> skip
#endif
    od
}

init {
    byte s;
    atomic {
        held[RID] = 1;              /* the receiver's own event */
        s = 0;
        do
        :: s < SESSIONS -> cdead[s] = 1; sidle[s] = 1; run Receiver(s); run Sender(s); s++
        :: else -> break
        od;
        s = 0
    }
}

/* (d) eventual convergence: once the faults stop, every event of the
   sender's log comes to be held by the receiver, and stays so. Checked
   with weak fairness (pan -a -f). */
ltl convergence { <>[] converged }
