set terminal pngcairo size 900,560 enhanced font 'sans,11'
set output 'sweep.png'
set title "Expiry sweep: time per expired share, E = 10,000 due among N shares (full run, medians of 3)"
set xlabel 'N, shares in the store'
set ylabel 'µs per expired share (durable, batches of 1000)'
set logscale x
set logscale y
set format x '%.0s%c'
set grid
set key top left
set xrange [5000:2000000]
plot 'sweep.dat' using 1:2 with linespoints lw 2 pt 7 title 'ShareLog', \
     '' using 1:3 with linespoints lw 2 pt 5 title 'C-LMDB (same schema, raw LMDB)', \
     '' using 1:4 with linespoints lw 2 pt 9 title 'SQLite (chunked delete)'
