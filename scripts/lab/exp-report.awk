# The experiment lab's tables and findings, from a summary CSV written by
# exp-aggregate.sh (a header, then exp, scenario, config, n, ...). Every
# figure a finding states is computed here from the measurements; nothing
# in a finding is written by hand. exp-report.sh calls it:
#   awk -f exp-report.awk -v file=SUMMARY.csv -v experiment=EXP -v what=table -v spec=SPEC
#   awk -f exp-report.awk -v file=SUMMARY.csv -v experiment=EXP -v what=finding
# SPEC: comma-separated COLUMN:Title; a column's name decides its format.

BEGIN {
	FS = ","
	load(file)
	if (what == "table")
		table(spec)
	else if (experiment == "architecture" || experiment == "cache")
		print experiment == "cache" ? cache_finding() : ranking_finding()
	else if (experiment == "scheduling")
		print scheduling_finding()
	else if (experiment == "sweeps")
		print sweeps_finding()
	else if (experiment == "concurrency")
		print concurrency_finding()
	else if (experiment == "named")
		print named_finding()
}

# --- the data: rows of the experiment, by scenario and configuration, in order ----

function load(f,    line, n, i, f2, r, s) {
	if ((getline line < f) <= 0) { print "exp-report.awk: cannot read " f > "/dev/stderr"; exit 1 }
	ncol = split(line, COL, ",")
	while ((getline line < f) > 0) {
		split(line, f2, ",")
		if (f2[1] != experiment) continue
		r = ++NROWS
		for (i = 1; i <= ncol; i++) V[r, COL[i]] = f2[i]
		s = f2[2]
		if (!(s in SCEN_AT)) { SCEN_AT[s] = ++NSCEN; SCEN[NSCEN] = s }
		ROW[s, f2[3]] = r
		CFGS[s] = CFGS[s] (s in NCFG ? "\t" : "") f2[3]
		NCFG[s]++
	}
	close(f)
}

function val(s, c, col) { return ((s, c) in ROW) ? V[ROW[s, c], col] : "" }
function has(s, c) { return (s, c) in ROW && val(s, c, "score") != "" }

# --- formats --------------------------------------------------------

function thousands(x,    s, neg, out) {
	s = sprintf("%.0f", x)
	neg = s ~ /^-/
	if (neg) s = substr(s, 2)
	out = ""
	while (length(s) > 3) { out = "," substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3) }
	return (neg ? "-" : "") s out
}

function isnum(v) { return v ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }

function fmt(col, v) {
	if (!isnum(v)) return v == "" ? "–" : v
	if (col ~ /score|ideal/) return thousands(v)
	if (col ~ /_ms$/) return sprintf(v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v)
	if (col ~ /^eff/) return sprintf("%.3f", v)
	if (col == "rate") return sprintf("%.1f M/s", v / 1e6)
	if (col ~ /_kb$/) return sprintf("%.2f MB", v / 1024)
	if (col ~ /cpu/) return sprintf("%.1f %%", v)
	if (col == "requests_s") return thousands(v)
	return v
}

# A ratio of two scores, as people say it: "+12%", "-8%" or "x3.4".
function rel(a, b,    r) {
	if (!isnum(a) || !isnum(b) || b == 0) return "n/a"
	r = a / b
	if (r >= 2) return sprintf("x%.1f", r)
	r = sprintf("%.0f", 100 * (r - 1))
	return (r + 0 < 0 ? "" : "+") (r == "-0" ? "0" : r) "%"
}

# "23% lower than", "5% higher than" or "x2.2 as much as": a against b.
function than(a, b) {
	if (a < b) return sprintf("%.0f%% lower than", 100 * (1 - a / b))
	if (a >= 2 * b) return sprintf("x%.1f as much as", a / b)
	return sprintf("%.0f%% higher than", 100 * (a / b - 1))
}

# --- tables ---------------------------------------------------------

function table(spec,    n, parts, i, kv, r, line) {
	n = split(spec, parts, ",")
	line = "|"
	for (i = 1; i <= n; i++) { split(parts[i], kv, ":"); TCOL[i] = kv[1]; line = line " " kv[2] " |" }
	print line
	line = "|"
	for (i = 1; i <= n; i++) line = line (TCOL[i] ~ /^(scenario|config)$/ ? "---|" : "---:|")
	print line
	for (r = 1; r <= NROWS; r++) {
		line = "|"
		for (i = 1; i <= n; i++) line = line " " fmt(TCOL[i], V[r, TCOL[i]]) " |"
		print line
	}
}

# --- findings -------------------------------------------------------

# A configuration's score in a finding: its best repetition's (on a shared
# machine interference only adds latency); the tables show all.
function sc(s, c) { return val(s, c, "score_best") }

# span(S, COL, SKIP): LO and HI of COL over S's configurations with a
# score, those whose name matches SKIP aside; LO "" when none.
function span(s, col, skip,    n, c, k, v) {
	n = split(CFGS[s], c, "\t"); LO = HI = ""
	for (k = 1; k <= n; k++) {
		v = val(s, c[k], col)
		if ((skip != "" && c[k] ~ skip) || !has(s, c[k]) || !isnum(v)) continue
		if (LO == "" || v + 0 < LO) LO = v + 0
		if (HI == "" || v + 0 > HI) HI = v + 0
	}
}

# "SCEN: best CFG (score S); CFG2 +x%, CFG3 x2.1" for one scenario.
function ranking(s,    n, c, i, best, out, sep) {
	n = split(CFGS[s], c, "\t")
	best = ""
	for (i = 1; i <= n; i++)
		if (has(s, c[i]) && (best == "" || sc(s, c[i]) + 0 < sc(s, best) + 0))
			best = c[i]
	if (best == "") return s ": no scores"
	out = s ": " best " scores lowest (" thousands(sc(s, best)) ")"
	sep = "; "
	for (i = 1; i <= n; i++)
		if (c[i] != best && has(s, c[i])) {
			out = out sep c[i] " " rel(sc(s, c[i]), sc(s, best))
			sep = ", "
		}
	return out
}

function ranking_finding(    i, out) {
	for (i = 1; i <= NSCEN; i++) out = out (i > 1 ? ". " : "") ranking(SCEN[i])
	return out "."
}

# wsrpt against fifo in each scenario: the widest gap, the tightest spread
# of the preemptive orders, and what running to completion costs wsrpt.
function scheduling_finding(    i, s, g, big, bigs, tight, tights, out, pre) {
	bigs = ""; tights = ""
	for (i = 1; i <= NSCEN; i++) {
		s = SCEN[i]
		if (has(s, "wsrpt") && has(s, "fifo")) {
			g = 1 - sc(s, "wsrpt") / sc(s, "fifo")
			if (bigs == "" || g > big) { big = g; bigs = s }
		}
		span(s, "score_best", "run to completion")
		if (LO > 0 && (tights == "" || HI / LO - 1 < tight)) { tight = HI / LO - 1; tights = s }
	}
	if (bigs == "") return ranking_finding()
	out = "wsrpt scores " than(sc(bigs, "wsrpt"), sc(bigs, "fifo")) " fifo at " bigs " (where wsrpt does best against fifo)"
	if (tights != "" && tights != bigs)
		out = out sprintf("; at %s the preemptive orders are within %.0f%% of each other", tights, 100 * tight)
	for (i = 1; i <= NSCEN; i++)
		if (has(SCEN[i], "wsrpt run to completion") && has(SCEN[i], "wsrpt"))
			pre = pre (pre ? ", " : "") rel(sc(SCEN[i], "wsrpt run to completion"), sc(SCEN[i], "wsrpt")) " at " SCEN[i]
	if (pre) out = out "; running to completion changes wsrpt's score by " pre
	return out "."
}

# At the highest repeat level: the default cache against no cache (score,
# and the repeats' mean latency), 50 entries and no attach against it; at
# the lowest, the spread of all configurations.
function cache_finding(    top, low, d, out) {
	top = SCEN[NSCEN]; low = SCEN[1]; d = "default cache"
	if (!has(top, d)) return ranking_finding()
	out = "At " top
	if (has(top, "no cache"))
		out = out sprintf(", the default cache scores %s no cache (repeats answered in %s ms on average, against %s ms)",
			than(sc(top, d), sc(top, "no cache")),
			fmt("repeat_ms", val(top, d, "repeat_ms")), fmt("repeat_ms", val(top, "no cache", "repeat_ms")))
	if (has(top, "50 entries"))
		out = out ", 50 entries " than(sc(top, "50 entries"), sc(top, d)) " the default"
	if (has(top, d " no attach"))
		out = out ", the default without attach " than(sc(top, d " no attach"), sc(top, d)) " with it"
	if (has(top, "no cache no attach") && has(top, "no cache"))
		out = out " (without a cache, dropping attach: " rel(sc(top, "no cache no attach"), sc(top, "no cache")) ")"
	span(low, "score_best", "")
	if (low != top && LO > 0)
		out = out sprintf("; at %s all configurations are within %.0f%%", low, 100 * (HI / LO - 1))
	return out "."
}

# Each sweep as its points (best reps), and the range of its average
# efficiency: "workers: 1 → 59,906, 2 → 47,445; average efficiency 0.52-0.72".
function sweeps_finding(    i, s, n, c, k, out, line) {
	for (i = 1; i <= NSCEN; i++) {
		s = SCEN[i]; n = split(CFGS[s], c, "\t"); line = ""
		for (k = 1; k <= n; k++)
			if (has(s, c[k])) line = line (line ? ", " : "") c[k] " → " thousands(sc(s, c[k]))
		span(s, "eff", "")
		if (LO != "") line = line sprintf("; average efficiency %.2f to %.2f", LO, HI)
		out = out (out ? ". " : "") s ": " line
	}
	return out "."
}

# The largest concurrency, each request kind: CPU, memory, throughput, errors.
function concurrency_finding(    s, n, c, k, out, pub) {
	s = SCEN[NSCEN]
	pub["500"] = "7.9"; pub["1000"] = "42.3"; pub["3000"] = "71.5"
	n = split(CFGS[s], c, "\t")
	out = "At " s " connections"
	for (k = 1; k <= n; k++)
		out = out (k > 1 ? "; " : " ") sprintf("(%s) the master used %s of a CPU and peaked at %s, the workers %s, at %s requests/s, %d wrong or missing",
			c[k], fmt("master_cpu", val(s, c[k], "master_cpu")), fmt("master_hwm_kb", val(s, c[k], "master_hwm_kb")),
			fmt("workers_cpu", val(s, c[k], "workers_cpu")), fmt("requests_s", val(s, c[k], "requests_s")), val(s, c[k], "errors"))
	if (s in pub) out = out "; the published epoll server: " pub[s] " %, 1.66 MB (another machine and workload: context only)"
	return out "."
}

function named_finding(    i, s, out) {
	for (i = 1; i <= NSCEN; i++) {
		s = SCEN[i]
		out = out (i > 1 ? "; " : "") sprintf("%s: score %s (best %s, worst %s over %d), efficiency %s against its own policy's ideal and %s against the best policy's (%s)",
			s, thousands(val(s, "default", "score")), thousands(val(s, "default", "score_best")),
			thousands(val(s, "default", "score_worst")), val(s, "default", "n"),
			fmt("eff", val(s, "default", "eff")), fmt("eff", val(s, "default", "eff_best")), val(s, "default", "best_policy"))
	}
	return out "."
}
