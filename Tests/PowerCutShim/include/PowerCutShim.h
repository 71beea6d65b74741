// The power-cut shim (docs/RELIABILITY.md "Power loss"): an LD_PRELOAD
// library, loaded into a writer process, never linked into anything. It
// interposes msync, fsync, fdatasync, sync_file_range, syncfs, sync, write,
// pwrite, pwrite64, ftruncate, ftruncate64, fallocate and posix_fallocate,
// and journals, in the order the process made them, what a power cut needs:
// the bytes of one file at each sync's entry and after each write, each
// sync's range and its return, and the lines the writer prints on one
// descriptor. Its only interface is the environment:
//
//   SHARELOG_POWERCUT_FILE      the file to watch (absolute path of data.mdb)
//   SHARELOG_POWERCUT_JOURNAL   where the journal goes (created, truncated)
//   SHARELOG_POWERCUT_LINES_FD  the descriptor whose writes are journaled as lines
//   SHARELOG_POWERCUT_DROP      "data-msync": skip every msync longer than one
//                               OS page (liblmdb's sync of the data pages),
//                               journaling it as dropped (the tests' broken build)
//
// The journal's records are described in Tests/CrashHarness/PowerCutJournal.swift.
#ifndef SHARELOG_POWERCUT_SHIM_H
#define SHARELOG_POWERCUT_SHIM_H

/// The journal format's version, written in its header.
#define POWERCUT_JOURNAL_VERSION 1

#endif
