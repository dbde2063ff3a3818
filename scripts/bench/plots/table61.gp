# Table 6.1 of seed 004 next to ours (docs/BENCHMARKS.md, "etcd leader routing"): RR/PL per
# per-member delay, the model's limit 13/9 and the issue's target 1.38.
#   gnuplot -e "png='docs/img/etcd-table61.png'" scripts/bench/plots/table61.gp
# Columns: delay, measured 2026-11-25 (quiet machine), published (thesis).
$data << EOD
0 0.753 1.015
15 1.426 1.15
30 1.427 1.216
45 1.431 1.267
EOD
set terminal pngcairo size 900, 500 font "sans,10"
set output png
set title "kube-apiserver → 3-member etcd: round-robin time / pick-leader time (400 serial requests)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:1.6]
set ylabel "RR / PL"
set xlabel "egress delay per etcd member (ms)"
set grid ytics
set key outside below horizontal
plot $data using 2:xtic(1) title "kubectl-fed etcd proxy (leader mode)" lc rgb "#1f77b4", \
     '' using 3 title "published (thesis, Table 6.1)" lc rgb "#aaaaaa", \
     13.0/9 with lines dt 2 lc rgb "#2ca02c" title "model limit 13/9", \
     1.38 with lines dt 3 lc rgb "#d62728" title "target 1.38"
