//! Limits that always hold: pathological models and benchmark families far beyond the
//! machine, run under `--memory 500 --timeout 3`, must end with exit 9 (or a verdict) within
//! a second of the timeout and with a peak resident set within 10% of the memory limit,
//! measured from outside the process (`wait4`'s rusage). On every engine that applies.

#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ZINGRS: &str = env!("CARGO_BIN_EXE_zingrs");
const MEMORY_MB: u64 = 500;
const TIMEOUT: Duration = Duration::from_secs(3);
/// How long after the timeout the process may still run.
const SLACK: Duration = Duration::from_secs(1);

/// What a run of `zingrs` did, measured by its parent.
struct Measured {
    code: Option<i32>,
    wall: Duration,
    /// Peak resident set, bytes (`ru_maxrss`).
    peak: u64,
    stdout: String,
    stderr: String,
}

/// Runs `zingrs ARGS` and measures it from outside: exit code, wall time, peak resident set.
fn measure(args: &[&str]) -> Measured {
    measure_with(args, None)
}

/// [`measure`] with the process's address space limited to `bytes` (`RLIMIT_AS`).
fn measure_limited(args: &[&str], bytes: u64) -> Measured {
    measure_with(args, Some(bytes))
}

/// The measured `zingrs` is a grandchild forked by `sh`, not a child of this test process: a
/// child spawned from here starts its `ru_maxrss` at this process's peak (through vfork) or at
/// the pages it copies (through fork), and other tests in this process hold hundreds of
/// megabytes of output at times. `sh` (a few hundred kilobytes) forks a subshell that waits for
/// a line on its saved standard input, and exits; the kernel hands the subshell to this
/// process (a subreaper), and only then is it told to exec `zingrs` (had `zingrs` started at
/// once, `sh` could reap it before exiting), which this process reaps with `wait4`.
fn measure_with(args: &[&str], limit: Option<u64>) -> Measured {
    static SUBREAPER: std::sync::Once = std::sync::Once::new();
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    SUBREAPER.call_once(|| {
        // SAFETY: a plain prctl on this process
        let r = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
        assert_eq!(r, 0, "PR_SET_CHILD_SUBREAPER");
    });
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let pidfile = model(&format!("measured-{run}.pid"), "");
    let ulimit = limit.map_or(String::new(), |b| format!("ulimit -v {}; ", b / 1024));
    let script = format!(
        "{ulimit}exec 3<&0 </dev/null; {{ read _ <&3; exec 3<&-; exec \"$0\" \"$@\"; }} & echo $! > '{pidfile}'"
    );
    let start = Instant::now();
    let mut sh = Command::new("/bin/sh")
        .arg("-c")
        .arg(script)
        .arg(ZINGRS)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    let mut go = sh.stdin.take().unwrap();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            r.read_to_end(&mut s).ok();
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let stdout = drain(Box::new(sh.stdout.take().unwrap()));
    let stderr = drain(Box::new(sh.stderr.take().unwrap()));
    assert!(sh.wait().expect("sh ends").success(), "sh starts zingrs");
    let pid: libc::pid_t = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .expect("the pid of zingrs");
    // the subshell is this process's child now: let it exec zingrs
    let _ = go.write_all(b"\n");
    drop(go);
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our adopted child
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    let wall = start.elapsed();
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Measured {
        code,
        wall,
        peak: usage.ru_maxrss as u64 * 1024,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Writes `text` to a fresh file named `name` and returns its path.
fn model(name: &str, text: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// A benchmark family's model, from `zingrs gen`.
fn generated(family: &str, n: &str, ext: &str) -> String {
    let o = Command::new(ZINGRS)
        .args(["gen", family, n])
        .output()
        .expect("zingrs gen runs");
    assert!(o.status.success(), "gen {family} {n}");
    model(
        &format!("{family}-{n}.{ext}"),
        &String::from_utf8(o.stdout).unwrap(),
    )
}

/// Checks `path` with `extra` options under the limits and asserts that they held: exit 9
/// (or one of `also`, a verdict reached before any limit), within a second of the timeout,
/// peak memory within 10% of the limit.
fn holds(path: &str, extra: &[&str], also: &[i32]) {
    held(path, extra, also);
}

/// [`holds`], and the verdict is `code`: the model is decided within the limits.
fn decides(path: &str, extra: &[&str], code: i32) {
    let got = held(path, extra, &[code]);
    assert_eq!(got, code, "{path} {}", extra.join(" "));
}

/// Checks `path` under the limits (as [`held`]) and returns what the run did, asserting only
/// that it ended in time and within the memory limit.
fn run_held(path: &str, extra: &[&str]) -> Measured {
    let memory = MEMORY_MB.to_string();
    let timeout = TIMEOUT.as_secs().to_string();
    let mut args = vec![
        "check",
        path,
        "--memory",
        &memory,
        "--timeout",
        &timeout,
        "--stats",
    ];
    args.extend_from_slice(extra);
    let m = measure(&args);
    assert!(m.wall <= TIMEOUT + SLACK, "{path}: {:?}", m.wall);
    let limit = MEMORY_MB << 20;
    assert!(
        m.peak <= limit + limit / 10,
        "{path}: peak {} MB",
        m.peak >> 20
    );
    m
}

/// [`holds`], returning the exit code.
fn held(path: &str, extra: &[&str], also: &[i32]) -> i32 {
    let memory = MEMORY_MB.to_string();
    let timeout = TIMEOUT.as_secs().to_string();
    let mut args = vec![
        "check",
        path,
        "--memory",
        &memory,
        "--timeout",
        &timeout,
        "--stats",
    ];
    args.extend_from_slice(extra);
    let m = measure(&args);
    let what = format!(
        "{} {}: exit {:?} after {:.2} s, peak {} MB\n{}{}",
        path,
        extra.join(" "),
        m.code,
        m.wall.as_secs_f64(),
        m.peak >> 20,
        m.stdout,
        m.stderr
    );
    let code = m.code.unwrap_or(-1);
    assert!(code == 9 || also.contains(&code), "{what}");
    if code == 9 {
        assert!(m.stdout.contains("inconclusive"), "{what}");
        // the statistics so far come with the verdict
        assert!(m.stdout.contains("distinct states"), "{what}");
    }
    assert!(m.wall <= TIMEOUT + SLACK, "{what}");
    let limit = MEMORY_MB << 20;
    assert!(m.peak <= limit + limit / 10, "{what}");
    code
}

fn parallel_havoc(n: usize) -> String {
    let ls: Vec<String> = (0..n).map(|i| format!("l{i}")).collect();
    let stars = vec!["*"; n].join(", ");
    format!(
        "main() begin decl {};\n  {} := {stars};\n  assert(l0 | !l0);\nend\n",
        ls.join(", "),
        ls.join(", ")
    )
}

fn call_with_stars(n: usize) -> String {
    let fs: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let stars = vec!["*"; n].join(", ");
    format!(
        "main() begin\n  f({stars});\nend\nf({}) begin\n  assert(a0 | !a0);\nend\n",
        fs.join(", ")
    )
}

/// [`havoc_loop`] whose globals are all read after the loop: 2^n states, each with 2^n
/// successors.
fn havoc_loop_read(n: usize) -> String {
    let gs: Vec<String> = (0..n).map(|i| format!("g{i}")).collect();
    let stars = vec!["*"; n].join(", ");
    format!(
        "decl {};\nmain() begin\n  while (*) do\n    {} := {stars};\n  od\n  assert(!g0 | {});\nend\n",
        gs.join(", "),
        gs.join(", "),
        gs.join(" | ")
    )
}

fn havoc_loop(n: usize) -> String {
    let gs: Vec<String> = (0..n).map(|i| format!("g{i}")).collect();
    let stars = vec!["*"; n].join(", ");
    format!(
        "decl {};\nmain() begin\n  while (*) do\n    {} := {stars};\n  od\nend\n",
        gs.join(", "),
        gs.join(", ")
    )
}

const ENGINES: [&str; 3] = ["explicit", "summary", "bdd"];

#[test]
fn a_parallel_assignment_of_24_stars() {
    let p = model("havoc24.bp", &parallel_havoc(24));
    for e in ENGINES {
        // the BDD engine decides it (passed) at once
        holds(&p, &["--engine", e], &[0]);
    }
}

/// [`parallel_havoc`] with every local read after the assignment: 2^24 outcomes that are all
/// different states. The depth-first search takes them a chunk at a time, so it stays far
/// below the memory limit and ends by the timeout (it listed all 2^24 outcomes first and
/// ended on the memory limit before taking any).
fn parallel_havoc_read(n: usize) -> String {
    let ls: Vec<String> = (0..n).map(|i| format!("l{i}")).collect();
    let stars = vec!["*"; n].join(", ");
    format!(
        "main() begin decl {};\n  {} := {stars};\n  assert({} | !l0);\nend\n",
        ls.join(", "),
        ls.join(", "),
        ls.join(" | ")
    )
}

#[test]
fn a_parallel_assignment_of_24_live_stars_is_taken_in_chunks() {
    let p = model("havoc24-read.bp", &parallel_havoc_read(24));
    for extra in [&[][..], &["--reduction", "none"][..]] {
        let mut args = vec!["--engine", "explicit"];
        args.extend_from_slice(extra);
        let m = run_held(&p, &args);
        assert!(m.code == Some(9) || m.code == Some(0), "{}", m.stdout);
        // the search itself ran: a time limit with states explored, not the memory limit
        // before the first state
        assert!(!m.stdout.contains("memory limit"), "{}", m.stdout);
        assert!(m.peak < 200 << 20, "peak {} MB", m.peak >> 20);
    }
}

/// The stored states a run reports ("N distinct states").
fn distinct_states(stdout: &str) -> u64 {
    let line = stdout
        .lines()
        .find(|l| l.contains(" distinct states"))
        .unwrap_or_else(|| panic!("no statistics in {stdout}"));
    let n = line.split(" distinct states").next().unwrap();
    let n = n.rsplit(' ').next().unwrap().replace(',', "");
    n.parse()
        .unwrap_or_else(|_| panic!("a count of states in {line}"))
}

/// The breadth-first searches (`--bfs`, ZING's order) and the summary engine take a wide
/// step's outcomes in windows as well, so what grows is the search: at the limit they have
/// stored many states. They listed all 2^24 outcomes first and reached a limit having stored
/// one state.
#[test]
fn every_search_takes_a_wide_step_in_windows() {
    let p = model("havoc24-read-all.bp", &parallel_havoc_read(24));
    for engine in [
        &["--engine", "explicit", "--bfs"][..],
        &["--engine", "explicit", "--search", "zing"][..],
        &["--engine", "explicit", "--bfs", "--reduction", "none"][..],
        &["--engine", "summary"][..],
    ] {
        let m = run_held(&p, engine);
        let what = format!("{engine:?}: exit {:?}\n{}{}", m.code, m.stdout, m.stderr);
        assert!(m.code == Some(9) || m.code == Some(0), "{what}");
        assert!(distinct_states(&m.stdout) >= 10_000, "{what}");
    }
}

/// Initial valuations come one at a time on every engine: 24 globals read by the assertion
/// are 2^24 initial states, and the searches store them as they come (the summary engine
/// more slowly: it matches each initial state against every root made so far).
#[test]
fn initial_valuations_are_taken_one_at_a_time() {
    let gs: Vec<String> = (0..24).map(|i| format!("g{i}")).collect();
    let p = model(
        "init24.bp",
        &format!(
            "decl {};\nmain() begin\n  assert({} | !g0);\nend\n",
            gs.join(", "),
            gs.join(" | ")
        ),
    );
    for engine in [
        &["--engine", "explicit"][..],
        &["--engine", "explicit", "--bfs"][..],
        &["--engine", "summary"][..],
    ] {
        let m = run_held(&p, engine);
        let what = format!("{engine:?}: exit {:?}\n{}{}", m.code, m.stdout, m.stderr);
        assert!(m.code == Some(9) || m.code == Some(0), "{what}");
        // listed whole, 2^24 valuations of 24 values are gigabytes: no state stored
        assert!(distinct_states(&m.stdout) >= 1_000, "{what}");
    }
}

/// A step whose first 2^20 outcomes are pruned and whose next one fails: the search reaches
/// it chunk by chunk, and its counterexample names outcome 1,048,576, which the search's own
/// encoding of chained steps used to read as a chain.
#[test]
fn an_outcome_past_a_million_is_found_and_replays() {
    let ls: Vec<String> = (0..21).map(|i| format!("l{i}")).collect();
    let text = format!(
        "main() begin decl {};\n  {} := {} constrain 'l0;\n  assert(!l0 | {});\nend\n",
        ls.join(", "),
        ls.join(", "),
        vec!["*"; 21].join(", "),
        ls[1..].join(" | ")
    );
    let p = model("constrain21.bp", &text);
    decides(&p, &["--engine", "explicit"], 3);
    decides(&p, &["--engine", "explicit", "--reduction", "none"], 3);
}

/// A saved counterexample through outcome 2^24 - 1 of a 24-`*` assignment replays taking that
/// outcome alone (replay listed all 2^24 outcomes: gigabytes). The run gets a 4 GiB address
/// space, so a regression fails here instead of filling the machine.
#[test]
fn replay_takes_one_outcome_of_a_wide_step() {
    let ls: Vec<String> = (0..24).map(|i| format!("l{i}")).collect();
    let all = ls.join(", ");
    let text = format!(
        "main() begin decl {all};\n  if (*) then\n    {all} := {};\n  else\n    {all} := {};\n  fi\n  assert(!({}));\nend\n",
        vec!["T"; 24].join(", "),
        vec!["*"; 24].join(", "),
        ls.join(" & ")
    );
    let p = model("replay24.bp", &text);
    let report = p.replace(".bp", ".json");
    // the search's counterexample takes the `then` branch (outcome 0 of the branch)
    let o = Command::new(ZINGRS)
        .args(["check", &p, "--engine", "explicit", "-q", "-o", &report])
        .output()
        .expect("zingrs runs");
    assert_eq!(o.status.code(), Some(3));
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let choices = json["path"]["choices"].as_array_mut().unwrap();
    assert_eq!(choices.len(), 3, "branch, assignment, assertion");
    // the `else` branch, then the last of the 2^24 valuations: every local true
    choices[0]["outcome"] = 1.into();
    choices[1]["outcome"] = ((1u64 << 24) - 1).into();
    // the saved trace is the `then` branch's, which replay would refuse for this path: the
    // edited report has none (as `--trace none` writes it)
    json["trace"] = serde_json::Value::Null;
    let wide = p.replace(".bp", "-else.json");
    std::fs::write(&wide, json.to_string()).unwrap();
    let m = measure_limited(&["replay", &p, &wide, "--detail", "none"], 4 << 30);
    assert_eq!(m.code, Some(3), "{}{}", m.stdout, m.stderr);
    assert!(
        m.stdout.contains("ends in the reported verdict"),
        "{}",
        m.stdout
    );
    assert!(m.peak < 100 << 20, "peak {} MB", m.peak >> 20);
    // an outcome past the end of the step is refused
    choices_outcome(&wide, 1, 1 << 24);
    let m = measure_limited(&["replay", &p, &wide, "--detail", "none"], 4 << 30);
    assert_eq!(m.code, Some(5), "{}{}", m.stdout, m.stderr);
    assert!(m.stderr.contains("no outcome #16777216"), "{}", m.stderr);
}

/// Sets outcome `k` of choice `i` in the report at `path`.
fn choices_outcome(path: &str, i: usize, k: u64) {
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["path"]["choices"][i]["outcome"] = k.into();
    std::fs::write(path, json.to_string()).unwrap();
}

#[test]
fn a_call_with_24_star_arguments() {
    let p = model("call24.bp", &call_with_stars(24));
    for e in ENGINES {
        holds(&p, &["--engine", e], &[0]);
    }
}

/// Nobody reads the globals the loop havocs: each takes one value where it gets one (live
/// ranges), so every engine decides it (it ended undecided, exit 9, before).
#[test]
fn a_loop_that_havocs_14_globals() {
    let p = model("loop14.bp", &havoc_loop(14));
    for e in ENGINES {
        decides(&p, &["--engine", e], 0);
        decides(&p, &["--engine", e, "--bfs"], 0);
    }
    // read after the loop, they keep every value: the limits still hold
    let read = model("loop14-read.bp", &havoc_loop_read(14));
    for e in ENGINES {
        holds(&read, &["--engine", e], &[0]);
    }
    holds(&read, &["--engine", "explicit", "--bfs"], &[]);
    holds(&read, &["--engine", "summary", "--bfs"], &[]);
}

/// `new` of an array too large for the memory limit is an exit 9 with the statistics so far
/// (the allocator asks the watchdog before any allocation of 32 MB or more), never an
/// allocation attempt; so is a heap that grows by a large array per step.
#[test]
fn zing_arrays_too_large_for_the_memory_limit() {
    let dynamic = model(
        "bigarray.zing",
        "array A[] int;\nclass Main {\n    activate static void main() {\n        A a;\n        a = new A[400000000];\n        a[5] = 1;\n        assert(a[5] == 1);\n    }\n};\n",
    );
    let fixed = model(
        "bigstatic.zing",
        "array A[1000000000] int;\nclass Main {\n    activate static void main() {\n        A a;\n        a = new A;\n        a[5] = 1;\n        assert(a[5] == 1);\n    }\n};\n",
    );
    // 10^8 elements, the low end of the sizes that met the kernel's limits
    let small = model(
        "bigarray8.zing",
        "array A[] int;\nclass Main {\n    activate static void main() {\n        A a;\n        a = new A[100000000];\n        a[5] = 1;\n        assert(a[5] == 1);\n    }\n};\n",
    );
    // an array of a million elements per iteration, each kept: the heap grows without end
    let growing = model(
        "arrayloop.zing",
        "array A[] int;\nclass Node { A a; Node next; };\nclass Main {\n    activate static void main() {\n        Node head;\n        Node n;\n        head = null;\n        while (true) {\n            n = new Node;\n            n.a = new A[1000000];\n            n.next = head;\n            head = n;\n        }\n    }\n};\n",
    );
    for p in [&dynamic, &fixed, &small, &growing] {
        for e in [
            &["--engine", "explicit"][..],
            &["--engine", "explicit", "--bfs"][..],
            &["--engine", "summary"][..],
        ] {
            holds(p, e, &[]);
        }
    }
}

/// Arrays longer than an `int` can count are beyond the language, not merely beyond the
/// memory limit: a runtime error (exit 4) at once, without an allocation attempt.
#[test]
fn zing_arrays_beyond_the_languages_bounds() {
    let dynamic = model(
        "hugearray.zing",
        "array A[] int;\nclass Main {\n    activate static void main() {\n        A a;\n        a = new A[4000000000];\n        a[5] = 1;\n    }\n};\n",
    );
    let fixed = model(
        "hugestatic.zing",
        "array A[4000000000] int;\nclass Main {\n    activate static void main() {\n        A a;\n        a = new A;\n        a[5] = 1;\n    }\n};\n",
    );
    for p in [&dynamic, &fixed] {
        for e in ["explicit", "summary"] {
            decides(p, &["--engine", e], 4);
        }
    }
}

/// A static initializer's array length beyond `int` was an allocation attempt while the
/// initial state was built (exit 9 under the limits). It runs before any process exists, and
/// its length is a constant: a compile error at the length, with a caret (exit 7), at once.
#[test]
fn static_arrays_beyond_the_int_bound_are_invalid_input() {
    let main =
        "class M {\n    activate static void main() {\n        int r;\n        r = 1;\n    }\n};\n";
    let dynamic = model(
        "staticbig.zing",
        &format!("array D[] int;\nclass H {{ static D d = new D[3000000000]; }};\n{main}"),
    );
    let fixed = model(
        "staticbigfixed.zing",
        &format!("array F[3000000000] int;\nclass H {{ static F f = new F; }};\n{main}"),
    );
    for (p, col, caret) in [(&dynamic, 30, "^^^^^^^^^^"), (&fixed, 24, "^^^^^")] {
        for e in ["explicit", "summary"] {
            let m = measure(&[
                "check",
                p,
                "--engine",
                e,
                "--memory",
                "500",
                "--timeout",
                "3",
            ]);
            let what = format!("{p}: exit {:?}\n{}{}", m.code, m.stdout, m.stderr);
            assert_eq!(m.code, Some(7), "{what}");
            assert!(m.stderr.contains(&format!("{p}:2:{col}")), "{what}");
            assert!(m.stderr.contains(caret), "{what}");
            assert!(m.stderr.contains("static initializer"), "{what}");
            assert!(m.wall < TIMEOUT, "{what}");
        }
    }
}

#[test]
fn thirty_unconstrained_globals() {
    let gs: Vec<String> = (0..30).map(|i| format!("g{i}")).collect();
    let p = model(
        "bits30.bp",
        &format!(
            "decl {};\nmain() begin\n  assert(g0 | !g0);\nend\n",
            gs.join(", ")
        ),
    );
    // g1..g29 are never read: they start with one value
    for e in ENGINES {
        decides(&p, &["--engine", e], 0);
    }
}

#[test]
fn benchmark_families_beyond_the_machine() {
    let parity = generated("bp-parity", "40", "bp");
    holds(&parity, &["--engine", "explicit"], &[]);
    holds(&parity, &["--engine", "summary"], &[]);
    let clone = generated("zing-clone", "400", "zing");
    holds(&clone, &["--engine", "explicit"], &[]);
    // unreduced (breadth-first, context bound) 14 philosophers are beyond the machine; with
    // the lock movers of the default reduction each round is two transitions, so it takes 40
    let phil = generated("philosophers-ordered", "14", "zing");
    holds(&phil, &["--engine", "explicit", "--bfs"], &[]);
    holds(&phil, &["--engine", "explicit", "--contexts", "6"], &[8]);
    let phil = generated("philosophers-ordered", "40", "zing");
    holds(&phil, &["--engine", "explicit"], &[]);
    holds(&phil, &["--engine", "summary"], &[]);
}

/// `--timeout` counts from the start: a model that takes longer than the timeout to read is
/// stopped while it is read.
#[test]
fn the_timeout_covers_parsing() {
    let mut text = String::from("main() begin decl x;\n");
    for _ in 0..400_000 {
        text.push_str("  x := !x;\n");
    }
    text.push_str("end\n");
    let p = model("long.bp", &text);
    let m = measure(&["check", &p, "--timeout", "0.2", "--engine", "explicit"]);
    assert_eq!(m.code, Some(9), "{}{}", m.stdout, m.stderr);
    assert!(m.stdout.contains("time limit"), "{}", m.stdout);
    assert!(
        m.wall < Duration::from_millis(1200),
        "{:?}: the front end alone takes longer",
        m.wall
    );
}

/// Ctrl-C (SIGINT) ends a run with "interrupted", the statistics so far and exit 9.
#[test]
fn an_interrupt_prints_the_statistics_and_exits_9() {
    let p = model("loop14-int.bp", &havoc_loop_read(14));
    signalled(&p, &[], libc::SIGINT);
}

/// Runs an explicit `check --stats` of `p` (with `extra`), sends it `signal` after 700 ms,
/// and asserts that it ends within [`SLACK`] as interrupted, with its statistics and exit 9.
fn signalled(p: &str, extra: &[&str], signal: libc::c_int) {
    let child = Command::new(ZINGRS)
        .args(["check", p, "--engine", "explicit", "--stats"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("zingrs starts");
    std::thread::sleep(Duration::from_millis(700));
    // SAFETY: sends a signal to our own child
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    let start = Instant::now();
    let o = child.wait_with_output().expect("zingrs ends");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(9), "{out}");
    assert!(out.contains("interrupted"), "{out}");
    assert!(out.contains("distinct states"), "{out}");
    assert!(start.elapsed() < SLACK, "{:?}", start.elapsed());
}

/// Runs `check` on `p` with `args`, reads a megabyte of its output (its trace is being
/// written), sends Ctrl-C, and returns the whole output, the exit code and the time from the
/// interrupt to the end.
fn interrupt_while_writing(p: &str, args: &[&str]) -> (String, Option<i32>, Duration) {
    let mut child = Command::new(ZINGRS)
        .args(["check", p, "--engine", "explicit"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("zingrs starts");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut out = vec![0u8; 1 << 20];
    stdout.read_exact(&mut out).expect("a megabyte of output");
    // SAFETY: sends SIGINT to our own child
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let start = Instant::now();
    stdout.read_to_end(&mut out).expect("the rest");
    let code = child.wait().expect("zingrs ends").code();
    (
        String::from_utf8_lossy(&out).into_owned(),
        code,
        start.elapsed(),
    )
}

/// Ctrl-C while a long counterexample is written stops the writing at the next step: the
/// trace says it was cut (a line in text formats, `"interrupted": true` in JSON, which stays
/// valid), the verdict stands (it was replayed and checked before the writing began: exit 3),
/// and the process ends at once instead of writing 400,000 more steps.
#[test]
fn an_interrupt_stops_a_long_trace_being_written() {
    // a loop body longer than the traces fold (40 statements): nothing is folded
    let p = model("loop10000x40-int.zing", &long_unfolded_loop(10_000));
    let (out, code, took) = interrupt_while_writing(&p, &["--format", "json"]);
    assert_eq!(code, Some(3));
    assert!(took < SLACK, "{took:?}");
    let j: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(j["trace"]["interrupted"], true);
    let steps = j["trace"]["steps"].as_array().expect("steps").len();
    assert!(steps > 0 && steps < 410_003, "{steps} steps");
    assert_eq!(j["verdict"]["kind"], "assertion-failed");

    let (out, code, took) = interrupt_while_writing(&p, &["--format", "bebop", "--stats"]);
    assert_eq!(code, Some(3));
    assert!(took < SLACK, "{took:?}");
    let cut = "\n  … interrupted (Ctrl-C or SIGTERM): the rest of the counterexample is not written (the verdict stands)\n";
    let at = out
        .find(cut)
        .unwrap_or_else(|| panic!("{}", &out[out.len() - 400..]));
    // the statistics still end the output
    assert!(out[at..].contains(" distinct states, "), "{}", &out[at..]);
}

/// Deep recursion on the explicit engine is linear in the depth: 100,000 calls deep (200,000
/// states) take well under the 3 s budget (they took minutes when every step wrote out the
/// whole stack), passing and failing at the bottom.
#[test]
fn recursion_100000_deep_on_the_explicit_engine() {
    let body = |bottom: &str| {
        format!(
            "class Main {{\n    static void f(int n) {{\n        if (n > 0) {{\n            f(n - 1);\n        }} else {{\n            {bottom}\n        }}\n    }}\n    activate static void main() {{\n        f(100000);\n    }}\n}};\n"
        )
    };
    let passes = model("deep-pass.zing", &body("n = 0;"));
    let fails = model("deep-fail.zing", &body("assert(false);"));
    for (p, code) in [(&passes, 0), (&fails, 3)] {
        for extra in [&[][..], &["--bfs"][..], &["--exact"][..]] {
            let mut args = vec![
                "check",
                p.as_str(),
                "--engine",
                "explicit",
                "--max-depth",
                "200000",
                // a guard against the quadratic walk coming back (over 60 s), with room for
                // a loaded machine: these take well under a second alone
                "--timeout",
                "30",
                "-q",
            ];
            args.extend_from_slice(extra);
            let m = measure(&args);
            assert_eq!(
                m.code,
                Some(code),
                "{p} {extra:?}: {}{}",
                m.stdout,
                m.stderr
            );
        }
    }
}

/// The same with a reference in every frame (an object passed down): the frames below the top
/// are digested with their references numbered, so this is linear too (100,000 deep took over
/// 60 s unreduced when every step wrote out the whole stack; 20,000 deep about 60 s).
#[test]
fn recursion_100000_deep_with_references_on_the_explicit_engine() {
    let body = |bottom: &str| {
        format!(
            "class Node {{ int v; }};\nclass Main {{\n    static void f(Node p, int n) {{\n        if (n > 0) {{\n            f(p, n - 1);\n        }} else {{\n            {bottom}\n        }}\n    }}\n    activate static void main() {{\n        Node r;\n        r = new Node;\n        f(r, 100000);\n    }}\n}};\n"
        )
    };
    let passes = model("deepref-pass.zing", &body("p.v = 1;"));
    let fails = model("deepref-fail.zing", &body("assert(p.v == 1);"));
    for (p, code) in [(&passes, 0), (&fails, 3)] {
        for extra in [&[][..], &["--reduction", "none"][..], &["--exact"][..]] {
            let mut args = vec![
                "check",
                p.as_str(),
                "--engine",
                "explicit",
                "--max-depth",
                "200000",
                // a guard against the quadratic walk coming back (over 60 s), with room for
                // a loaded machine: these take well under a second alone
                "--timeout",
                "30",
                "-q",
            ];
            args.extend_from_slice(extra);
            let m = measure(&args);
            assert_eq!(
                m.code,
                Some(code),
                "{p} {extra:?}: {}{}",
                m.stdout,
                m.stderr
            );
        }
    }
}

/// The same with a new object in every frame, kept in a local and read after the call
/// (`zing-deep-alloc`): every frame holds another reference and the heap grows with the
/// stack, so the deep states are fingerprinted per frame with references named by position
/// (`canon::deep`). Unreduced, every statement is one transition: 6N + 8 states (see
/// tests/fingerprints.rs), all stored; it took 15 s at 8,000 deep and did not end in 300 s
/// at 100,000 when every step renumbered the heap, and takes a few seconds now, depth- and
/// breadth-first.
#[test]
fn recursion_100000_deep_with_a_new_object_per_frame_on_the_explicit_engine() {
    let p = generated("zing-deep-alloc", "100000", "zing");
    // breadth-first too: each queued state keeps its canon (it walked every state whole and
    // did not end in 60 s at 16,000 deep)
    for extra in [&[][..], &["--bfs"][..]] {
        let mut args = vec![
            "check",
            p.as_str(),
            "--engine",
            "explicit",
            "--reduction",
            "none",
            "--max-depth",
            "200000",
            "--timeout",
            "60",
        ];
        args.extend_from_slice(extra);
        let m = measure(&args);
        assert_eq!(m.code, Some(0), "{extra:?}: {}{}", m.stdout, m.stderr);
        assert_eq!(distinct_states(&m.stdout), 6 * 100_000 + 8, "{}", m.stdout);
    }
}

/// A Zing model whose loop runs `n` times a body of 40 statements, each on its own line, then
/// fails an assertion: a trace of 41 * n + 3 steps that no fold shortens (they fold loop
/// bodies of up to 32 steps).
fn long_unfolded_loop(n: u32) -> String {
    let body = "            j = j + 1;\n".repeat(39);
    format!(
        "class Main {{\n    activate static void main() {{\n        int i;\n        int j;\n        i = 0;\n        while (i < {n}) {{\n            i = i + 1;\n{body}        }}\n        assert(i == 0, \"the loop ran\");\n    }}\n}};\n"
    )
}

/// A loop of `n` iterations before a failing assertion: a counterexample of 2n + 3 steps whose
/// search stores about n states.
fn long_loop(n: u32) -> String {
    format!(
        "class Main {{\n    activate static void main() {{\n        int i;\n        i = 0;\n        while (i < {n}) {{\n            i = i + 1;\n        }}\n        assert(i == 0, \"the loop ran\");\n    }}\n}};\n"
    )
}

/// Printing a counterexample of 1,000,003 steps keeps one state at a time, not every state
/// and step (printing it took 935 MB when the search itself took 67 MB), in `check`'s text
/// (with the loop folded) and in `zingrs replay` of a saved path; each format writes as it
/// goes.
#[test]
fn a_million_step_trace_prints_in_bounded_memory() {
    let p = model("loop500000.zing", &long_loop(500_000));
    let m = measure(&["check", &p, "--engine", "explicit"]);
    assert_eq!(m.code, Some(3), "{}{}", m.stdout, m.stderr);
    // the iterations after the first two and before the last: 500,000 - 3
    assert!(
        m.stdout.contains("Counterexample (1000003 steps):"),
        "{}",
        m.stdout
    );
    assert!(
        m.stdout
            .contains("  … 499,997 more iterations of lines 5–6 …\n"),
        "{}",
        m.stdout
    );
    assert!(m.stdout.contains("  #1000002 Main.main"), "{}", m.stdout);
    assert!(m.peak < 160 << 20, "check: peak {} MB", m.peak >> 20);
    // the path alone (a report without trace steps) replays and prints the whole trace
    // (read as it is written: a pipe holds less than the path's 60 MB)
    let saved = Command::new(ZINGRS)
        .args(["check", &p, "--engine", "explicit", "--format", "json"])
        .args(["--trace", "none"])
        .output()
        .expect("zingrs runs");
    assert_eq!(saved.status.code(), Some(3));
    let report = p.replace(".zing", ".json");
    std::fs::write(&report, &saved.stdout).unwrap();
    let r = measure(&["replay", &p, &report]);
    assert_eq!(r.code, Some(3), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("  … 499,997 more iterations of lines 5–6 …\n"),
        "{}",
        r.stdout
    );
    assert!(r.peak < 100 << 20, "replay: peak {} MB", r.peak >> 20);
}

/// A fresh FIFO named `name` next to the models.
fn fifo(name: &str) -> std::path::PathBuf {
    let p = std::path::PathBuf::from(model(name, ""));
    std::fs::remove_file(&p).unwrap();
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    p
}

/// The names in the directory of `path` that start with `stem` or `.stem` (the report and
/// any temporary file of it).
fn saved_files(path: &std::path::Path, stem: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(stem) || n.starts_with(&format!(".{stem}")))
        .collect();
    v.sort();
    v
}

/// SIGTERM is Ctrl-C: during the search it ends the run with "interrupted", the statistics
/// and exit 9, and the `-o` report is whole (valid JSON, the limit as its verdict) with no
/// temporary file left beside it.
#[test]
fn sigterm_during_the_search_is_an_interrupt_with_a_whole_report() {
    let p = model("loop14-term.bp", &havoc_loop_read(14));
    let report = std::path::PathBuf::from(p.replace(".bp", ".json"));
    signalled(&p, &["-o", report.to_str().unwrap()], libc::SIGTERM);
    let j: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).expect("valid JSON");
    assert_eq!(j["verdict"]["limit"], "interrupted");
    assert!(
        j["stats"]["transitions"].as_u64().is_some(),
        "{}",
        j["stats"]
    );
    assert_eq!(
        saved_files(&report, "loop14-term.json"),
        ["loop14-term.json"]
    );
}

/// Runs `check` on a 41,003-step counterexample that no fold shortens with `-o` a FIFO and
/// `args`; `during` runs once the report is being written (the FIFO opened, `first` bytes
/// read) and may signal the child. Returns the report read, the exit code and standard error.
fn save_through_fifo(
    name: &str,
    args: &[&str],
    first: usize,
    during: impl FnOnce(u32),
) -> (serde_json::Value, Option<i32>, String) {
    // a trace that folding does not shorten: 41,003 steps, many megabytes of JSON, so the
    // writer waits on the FIFO while the test acts
    let p = model(&format!("{name}.zing"), &long_unfolded_loop(1_000));
    let fifo = fifo(&format!("{name}.fifo"));
    let mut child = Command::new(ZINGRS)
        .args(["check", &p, "--engine", "explicit", "-q", "-o"])
        .arg(&fifo)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("zingrs starts");
    let id = child.id();
    let mut stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        stderr.read_to_string(&mut s).unwrap();
        s
    });
    let mut f = std::fs::File::open(&fifo).unwrap();
    let mut text = vec![0u8; first];
    f.read_exact(&mut text).unwrap();
    during(id);
    f.read_to_end(&mut text).unwrap();
    let code = child.wait().unwrap().code();
    let j = serde_json::from_slice(&text).expect("valid JSON");
    (j, code, err.join().unwrap())
}

/// SIGTERM while a found counterexample is saved stops the writing at the next step: the
/// report is valid JSON whose trace says it was cut, the verdict stands (exit 3).
#[test]
fn sigterm_while_a_report_is_saved_cuts_its_trace_not_the_verdict() {
    let (j, code, err) = save_through_fifo("term-save", &[], 1 << 20, |id| {
        // SAFETY: sends SIGTERM to our own child
        unsafe { libc::kill(id as libc::pid_t, libc::SIGTERM) };
    });
    assert_eq!(code, Some(3), "{err}");
    assert_eq!(j["verdict"]["kind"], "assertion-failed");
    assert_eq!(j["trace"]["interrupted"], true);
    let steps = j["trace"]["steps"].as_array().unwrap().len();
    assert!(steps > 0 && steps < 41_003, "{steps} steps");
    assert!(
        err.contains("interrupted while the report was saved"),
        "{err}"
    );
}

/// `--timeout` that expires while a found counterexample is saved (here the reader of the
/// FIFO waits past it) cuts the writing, which the report and standard error say, and never
/// the verdict: exit 3, not "time limit reached before the search ended".
#[test]
fn a_timeout_while_a_report_is_saved_keeps_the_verdict() {
    let (j, code, err) = save_through_fifo("timeout-save", &["--timeout", "1"], 1, |_| {
        std::thread::sleep(Duration::from_millis(1500));
    });
    assert_eq!(code, Some(3), "{err}");
    assert_eq!(j["verdict"]["kind"], "assertion-failed");
    assert_eq!(j["exit_code"], 3);
    assert_eq!(j["trace"]["interrupted"], true);
    assert!(
        err.contains("time limit reached while the report was saved"),
        "{err}"
    );
}

/// A run the watchdog ends (here an allocation past the memory limit) knows its states and
/// time, not its transitions, initial states or depths: `null` in JSON, "not counted" in
/// text, never a false 0.
#[test]
fn a_forced_limit_reports_what_was_not_counted() {
    let p = model(
        "bigarray-stats.zing",
        "array A[] int;\nclass Main {\n    activate static void main() {\n        A a;\n        a = new A[400000000];\n        a[5] = 1;\n        assert(a[5] == 1);\n    }\n};\n",
    );
    let mb = MEMORY_MB.to_string();
    let args = [
        "check", &p, "--engine", "explicit", "--memory", &mb, "--stats",
    ];
    let m = measure(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(m.code, Some(9), "{}{}", m.stdout, m.stderr);
    let j: serde_json::Value = serde_json::from_str(&m.stdout).expect("JSON");
    let s = &j["stats"];
    for k in [
        "transitions",
        "initial_states",
        "max_stack_depth",
        "max_search_depth",
        "omission_probability",
    ] {
        assert!(s[k].is_null(), "{k}: {s}");
    }
    let m = measure(&args);
    assert_eq!(m.code, Some(9), "{}{}", m.stdout, m.stderr);
    assert!(
        m.stdout
            .contains("(not counted: transitions, initial states, stack depth)"),
        "{}",
        m.stdout
    );
    assert!(!m.stdout.contains(" 0 transitions"), "{}", m.stdout);
}
