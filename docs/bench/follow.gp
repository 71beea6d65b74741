set terminal pngcairo size 1000,560 enhanced font 'sans,11'
set output 'follow.png'
set title "Follow latency: a share's commit on main to its commit on the follower (full run, 1,000 shares)"
set ylabel 'ms (log scale)'
set logscale y
set grid ytics
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top right
set xtics noenhanced
set arrow from graph 0, first 1.5024 to graph 1, first 1.5024 nohead dt 2 lw 2 lc rgb '#c00000'
set label 'goal for the p50: 2 x (commit + round trip) = 1.50 ms' at graph 0.02, first 1.7278 tc rgb '#c00000'
plot 'follow.dat' using 2:xtic(1) title 'p50', '' using 3 title 'p99'
