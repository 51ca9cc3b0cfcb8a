# The guest's half of tests/pmu/live.sh: run by guest-run in /work (busybox
# sh), every gexplore command line as a user would type it. Each step keeps
# its output in NAME.out and its exit status in NAME.rc; live.sh reads them
# (and the results) on the host after guest-run -o.
step() {	# step NAME COMMAND...
	name=$1
	shift
	"$@" >"$name.out" 2>&1
	echo $? >"$name.rc"
}
dmesg >dmesg.txt
cat /proc/cpuinfo >cpuinfo.txt
ls /sys/bus/event_source/devices/ >pmus.txt

# exact counts and samples in the hot function; SAV period; frequency mode
step exact gexplore record -q -o exact -e cycles:u,instructions:u -- ./wl-loop
step sav gexplore record -q -o sav -c 1000000 -e cycles:u -- ./wl-loop
step freq gexplore record -q -o freq -F 2000 -e cycles:u -- ./wl-loop
# a group, read whole with time enabled and running
step grp gexplore record -q -o grp -c 10000000 -e '{cycles:u,instructions:u}' -- ./wl-loop

# 12 events on 7 counters: three groups of four, each with one user-only
# event (the truth is the exact run's count); gexplore rotates, then the
# kernel does; then twelve ungrouped events, which only the kernel can
# multiplex
G='{instructions:u,cycles:k,r08,r11:k},{cycles:u,instructions:k,r11,r08:k},{r08:u,r11:u,instructions,cycles}'
step mux gexplore record -o mux -c 20000000 -e "$G" -- ./wl-loop
step kmux gexplore record -o kmux --mux=kernel -c 20000000 -e "$G" -- ./wl-loop
step flat gexplore record -q -o flat -c 20000000 \
	-e instructions:u,cycles:u,r08:u,r11:u,instructions:k,cycles:k,r08,r11,instructions,cycles,r08:k,r11:k \
	-- ./wl-loop
step mux-report gexplore report mux
# issue 26's recording: thirteen ungrouped events on seven counters (five
# of them unimplemented here); the kernel multiplexes, every count is
# scaled and shown with its running share
step flat13 gexplore record -q -o flat13 \
	-e cycles:u,instructions:u,r03,r04,r10,r12,r1b,r23,r24,r3f,r01,r00,r11 -- ./wl-loop
step flat13-report gexplore report flat13

# CPI is exactly 1.00 here (icount): --max 0.9 fails, --max 1.1 passes
step check09 gexplore check --max CPI=0.9 -- ./wl-loop
step check11 gexplore check --max CPI=1.1 -- ./wl-loop
step rcheck09 gexplore record -q -o rc09 --check '--max CPI=0.9' -- ./wl-loop
step rcheck11 gexplore record -q -o rc11 --check '--max CPI=1.1' -- ./wl-loop

# top-down with an Arm model (Neoverse N1's events; the A57 has no model)
step td gexplore record -q -o td --cpu n1 -- ./wl-loop
step td-report gexplore report td

# the keeper: gx-keeper built for arm64 and installed in libexec, run
# (not the fork of gexplore it falls back to)
step keeper gexplore record -q -o keeper -e cycles:u -- \
	sh -c 'cat /proc/$PPID/comm; readlink /proc/$PPID/exe; exit 7'

# the arm64 peak kernels
step peak gexplore peak --quick --no-save --json
exit 0
