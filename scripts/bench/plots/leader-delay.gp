# Every request's latency against the time since the delay was put on the leader, one panel per
# delay, policy off (leader) vs on (leader+classifier). Called by scripts/bench/etcd-leader-delay:
#   gnuplot -e "csv='requests.csv'; png='out.png'; delays='20 40 60'" leader-delay.gp
# CSV columns: policy, delay_ms, since_delay_s, latency_ms, ok.
if (!exists("delays")) delays = "20 40 60"
if (!exists("xmin")) xmin = -10
if (!exists("xmax")) xmax = 60
n = words(delays)
set terminal pngcairo size 1000, 300 * n font "sans,10"
set output png
set datafile separator ","
set multiplot layout n, 1 title "kube-apiserver → etcd proxy: ConfigMap create/get latency, delay put on the leader at t = 0"
set logscale y
set yrange [1:1000]
set xrange [xmin:xmax]
set ylabel "request latency (ms)"
set grid ytics xtics
set key top right
do for [i = 1:n] {
  d = word(delays, i) + 0
  if (i == n) { set xlabel "seconds since the delay was put on the leader" } else { unset xlabel }
  set title sprintf("%d ms on the leader's egress", d)
  plot csv every ::1 using ((strcol(1) eq "leader" && $2 == d) ? $3 : 1/0):4 \
         with points pt 7 ps 0.25 lc rgb "#d62728" title "policy off (leader)", \
       csv every ::1 using ((strcol(1) eq "leader+classifier" && $2 == d) ? $3 : 1/0):4 \
         with points pt 7 ps 0.25 lc rgb "#1f77b4" title "policy on (leader+classifier)"
}
unset multiplot
