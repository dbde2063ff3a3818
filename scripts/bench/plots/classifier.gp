# Per-class F1 of the leader-health classifier next to the thesis' (docs/BENCHMARKS.md,
# "etcd leader-health classifier"; dataset leader_health_2026-11-25.csv, 10 splits).
#   gnuplot -e "png='docs/img/etcd-classifier-f1.png'" scripts/bench/plots/classifier.gp
# Columns: class, ours by row, ours by episode, published XGBoost, published ANN.
$data << EOD
"0 idle" 100.00 99.66 93.63 81.94
"1 delay" 100.00 99.33 97.35 94.10
"2 overload" 99.64 94.03 85.89 83.84
"3 both" 99.64 91.22 89.87 89.12
EOD
set terminal pngcairo size 900, 500 font "sans,10"
set output png
set title "etcd leader-health classifier: F1 per class (mean of 10 splits)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [70:102]
set ylabel "F1 (%)"
set grid ytics
set key outside below horizontal
plot $data using 2:xtic(1) title "ours, split by row" lc rgb "#1f77b4", \
     '' using 3 title "ours, split by episode" lc rgb "#9ecae1", \
     '' using 4 title "published XGBoost" lc rgb "#888888", \
     '' using 5 title "published ANN" lc rgb "#cccccc", \
     97 with lines dt 3 lc rgb "#d62728" title "target 97 %"
