//! Differential testing: random boolean programs (`zingrs gen random-bp SEED`) checked by every
//! engine that applies, plus explicit search depth-first, breadth-first and with exact state
//! storage. Conclusive verdicts (passed / error found) must agree; a disagreement prints the
//! seed, the program and a minimized program, and fails.
//!
//! `ZINGRS_DIFF_COUNT` (default 1400; the CI's 15 minutes bound it) sets the number of programs, `ZINGRS_DIFF_START` the first
//! seed, `ZINGRS_DIFF_SIZE` the size passed to the generator (default 8).
//! `ZINGRS_DIFF_SPAWN_COUNT` (default 150) sets the number of programs with threads created in
//! a loop (`zingrs gen random-spawn-bp SEED`), on which coverability is compared with the
//! explicit engine under `--threads N`, with and without symmetry.
//! `ZINGRS_DIFF_CONCURRENT=1` checks only the concurrent ones among them (the others are
//! skipped, not counted as compared), for long runs aimed at the reductions; both tests print
//! how many concurrent models they checked.

mod common {
    pub mod env;
}

use common::env::env_num;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use zingrs::cli::regress::{
    bounded_disagreement, check_text, differential_configs, disagreement, spawn_configs, Config,
    Run,
};
use zingrs::gen::{random_bp, random_spawn_bp, random_zing};

/// The stack-depth bound: fuel-bounded recursion stays below 8 frames; programs with unbounded
/// recursion are cut here (explicit then answers "bounded" and is not compared).
const MAX_DEPTH: u32 = 12;
/// Per configuration and program. Runs that reach it compare nothing, and the programs that
/// take longer than this (a few dozen of 2000) run far longer: 2 s instead of 5 s halved the
/// test (329 s against 169 s on 2 cores) and left 1972 programs compared instead of 1974.
const TIMEOUT: Duration = Duration::from_secs(2);
/// Per configuration and program with threads created in a loop: the deepening search and
/// the Karp–Miller tree may not end on some, and time spent there compares nothing.
const SPAWN_TIMEOUT: Duration = Duration::from_secs(2);
/// Per configuration and candidate while minimizing.
const MIN_TIMEOUT: Duration = Duration::from_secs(1);

/// Whether only concurrent models are checked (`ZINGRS_DIFF_CONCURRENT=1`).
fn concurrent_only() -> bool {
    env_num("ZINGRS_DIFF_CONCURRENT", 0) != 0
}

/// Whether a generated model starts a thread (a boolean program's `start_thread`, a Zing
/// model's `async`).
fn is_concurrent(text: &str) -> bool {
    text.contains("start_thread") || text.contains("async ")
}

/// The configurations' runs on `text`, in order, except that once the plain explicit search
/// stops at its limit, its variants over the same state space (breadth-first, exact storage,
/// unreduced, several workers: each stores as many states or more) are not run. They would
/// stop at their limits too, and a run stopped by a limit is compared with nothing; on the
/// default seeds three such programs spent half of this test's CPU time running them.
fn runs_of(text: &str, configs: &[Config], timeout: Duration) -> Result<Vec<Run>, String> {
    let mut runs: Vec<Run> = Vec::new();
    for c in configs {
        let explicit_stopped = runs
            .iter()
            .any(|r| r.engine == "explicit" && r.exit_code == Some(zingrs::report::exit::LIMIT));
        if explicit_stopped && c.name.starts_with("explicit-") {
            continue;
        }
        runs.extend(check_text(
            "random.bp",
            text,
            std::slice::from_ref(c),
            MAX_DEPTH,
            timeout,
        )?);
    }
    Ok(runs)
}

/// Greedy delta debugging over lines: removes chunks of lines (halving the chunk size down to
/// one line) and whole indented blocks while `keep` still holds (`keep` must reject programs
/// that do not compile). The leading `//` header lines are kept (they hold the options).
fn minimize(text: &str, keep: &dyn Fn(&str) -> bool) -> String {
    let all: Vec<&str> = text.lines().collect();
    let head = all
        .iter()
        .take_while(|l| l.trim_start().starts_with("//"))
        .count();
    let header: Vec<String> = all[..head].iter().map(|s| s.to_string()).collect();
    let mut lines: Vec<String> = all[head..].iter().map(|s| s.to_string()).collect();
    let join = |ls: &[String]| {
        let mut t = header.join("\n");
        t.push('\n');
        t.push_str(&ls.join("\n"));
        t.push('\n');
        t
    };
    let indent = |l: &str| l.len() - l.trim_start().len();
    loop {
        let mut progress = false;
        // indented blocks: line i through a later line j of the same indentation
        let mut i = 0;
        while i < lines.len() {
            let mut removed = false;
            let mut j = i + 1;
            while j < lines.len() && indent(&lines[j]) >= indent(&lines[i]) {
                if indent(&lines[j]) == indent(&lines[i]) {
                    let mut cand = lines[..i].to_vec();
                    cand.extend_from_slice(&lines[j + 1..]);
                    if keep(&join(&cand)) {
                        lines = cand;
                        progress = true;
                        removed = true;
                        break;
                    }
                }
                j += 1;
            }
            if !removed {
                i += 1;
            }
        }
        // chunks of lines
        let mut chunk = lines.len().div_ceil(2).max(1);
        loop {
            let mut i = 0;
            while i < lines.len() {
                let end = (i + chunk).min(lines.len());
                let mut cand = lines[..i].to_vec();
                cand.extend_from_slice(&lines[end..]);
                if keep(&join(&cand)) {
                    lines = cand;
                    progress = true;
                } else {
                    i += chunk;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
        if !progress {
            return join(&lines);
        }
    }
}

/// The outcome of one seed.
enum Outcome {
    /// Verdict kinds per configuration (conclusive ones only).
    Agreed(Vec<(String, i32)>),
    Failed(String),
    /// Sequential, under `ZINGRS_DIFF_CONCURRENT=1`.
    Skipped,
}

fn check_seed(seed: u64, size: u32, configs: &[Config], concurrent: &AtomicUsize) -> Outcome {
    let text = random_bp(seed, size);
    if is_concurrent(&text) {
        concurrent.fetch_add(1, Ordering::Relaxed);
    } else if concurrent_only() {
        return Outcome::Skipped;
    }
    let runs = match runs_of(&text, configs, TIMEOUT) {
        Ok(r) => r,
        Err(e) => {
            return Outcome::Failed(format!(
                "seed {seed}: the generated program is rejected:\n{text}\n{e}"
            ))
        }
    };
    match disagreement(&runs) {
        None => Outcome::Agreed(
            runs.iter()
                .filter_map(|r| Some((r.engine.clone(), r.exit_code?)))
                .collect(),
        ),
        Some(why) => {
            let keep = |t: &str| {
                runs_of(t, configs, MIN_TIMEOUT).is_ok_and(|r| disagreement(&r).is_some())
            };
            let small = minimize(&text, &keep);
            let after = runs_of(&small, configs, TIMEOUT)
                .ok()
                .and_then(|r| disagreement(&r))
                .unwrap_or_default();
            Outcome::Failed(format!(
                "seed {seed}: engines disagree: {why}\n\
                 replay: zingrs gen random-bp {seed} --size {size} > case.bp && zingrs check --engine all case.bp\n\
                 --- program\n{text}--- minimized ({after})\n{small}"
            ))
        }
    }
}

#[test]
fn engines_agree_on_random_programs() {
    let count = env_num("ZINGRS_DIFF_COUNT", 1400);
    let start = env_num("ZINGRS_DIFF_START", 0);
    let size = env_num("ZINGRS_DIFF_SIZE", 8) as u32;
    let configs = differential_configs();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    // per configuration: [passed, error, bounded, limit, other]
    let tally: Mutex<BTreeMap<String, [u64; 5]>> = Mutex::new(BTreeMap::new());
    let compared = AtomicUsize::new(0);
    let concurrent = AtomicUsize::new(0);
    let slow = Mutex::new(Vec::new());
    let clock = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as u64;
                    if i >= count {
                        break;
                    }
                    let t0 = Instant::now();
                    let outcome = check_seed(start + i, size, &configs, &concurrent);
                    slow.lock().unwrap().push((t0.elapsed(), start + i));
                    match outcome {
                        Outcome::Agreed(v) => {
                            let conclusive = v.iter().filter(|(_, c)| *c == 0 || *c == 3).count();
                            if conclusive >= 2 {
                                compared.fetch_add(1, Ordering::Relaxed);
                            }
                            let mut t = tally.lock().unwrap();
                            for (e, code) in v {
                                let slot = match code {
                                    0 => 0,
                                    3 => 1,
                                    8 => 2,
                                    9 => 3,
                                    _ => 4,
                                };
                                t.entry(e).or_default()[slot] += 1;
                            }
                        }
                        Outcome::Failed(msg) => failures.lock().unwrap().push(msg),
                        Outcome::Skipped => {}
                    }
                })
                .expect("worker thread");
        }
    });
    let tally = tally.into_inner().unwrap();
    eprintln!(
        "differential: {count} programs (seeds {start}..{}), size {size}, {:.1} s, {} compared by at least two conclusive configurations, {} concurrent{}",
        start + count,
        clock.elapsed().as_secs_f64(),
        compared.load(Ordering::Relaxed),
        concurrent.load(Ordering::Relaxed),
        if concurrent_only() { " (only these checked)" } else { "" }
    );
    for (e, [p, f, b, l, o]) in &tally {
        eprintln!(
            "  {e:<15} passed {p:>6}  error {f:>6}  bounded {b:>5}  limit {l:>4}  other {o:>3}"
        );
    }
    let mut slow = slow.into_inner().unwrap();
    slow.sort();
    let top: Vec<String> = slow
        .iter()
        .rev()
        .take(5)
        .map(|(d, s)| format!("{s} ({:.2} s)", d.as_secs_f64()))
        .collect();
    eprintln!("  slowest seeds: {}", top.join(", "));
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {count} random programs fail:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // checks run in-process (zingrs regress, --engine all): an engine must not leave threads
    // behind; a few are the test harness's own
    if let Some(left) = leftover_threads() {
        assert!(
            left.len() <= 16,
            "{} threads are still alive after the checks ended (an engine leaks threads): {:?}",
            left.len(),
            summarize(&left)
        );
    }
    // the generator must keep producing both verdicts, or the comparison says little
    let explicit = tally.get("explicit").copied().unwrap_or_default();
    let checked = if concurrent_only() {
        concurrent.load(Ordering::Relaxed) as u64
    } else {
        count
    };
    if checked >= 200 {
        assert!(
            explicit[0] * 10 >= checked && explicit[1] * 10 >= checked,
            "a lopsided mix of verdicts: {explicit:?}"
        );
    }
}

/// A random concurrent program (`zingrs gen random-bp SEED`, standard layout: `main` starts a
/// thread) with `--contexts K` (K = SEED mod 3) added to its options; `None` for a sequential
/// program.
fn with_bound(seed: u64, size: u32) -> Option<String> {
    let text = random_bp(seed, size);
    if !text.contains("start_thread") {
        return None;
    }
    let k = seed % 3;
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match lines.iter().position(|l| l.starts_with("// options:")) {
        Some(i) => lines[i].push_str(&format!(" --contexts {k}")),
        None => {
            let at = lines.iter().take_while(|l| l.starts_with("//")).count();
            lines.insert(at, format!("// options: --contexts {k}"));
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    Some(out)
}

#[test]
fn bdd_and_explicit_agree_on_random_threads_under_context_bounds() {
    // issue 15: the bdd engine's slots for started threads against the explicit search, on
    // the random concurrent programs of the main test with a small bound; both of its
    // searches (product states where no thread recurses, §5's tuples)
    let count = env_num("ZINGRS_DIFF_THREADS_COUNT", 300);
    let configs: Vec<Config> = differential_configs()
        .into_iter()
        .filter(|c| {
            matches!(
                c.name.as_str(),
                "explicit" | "explicit-bfs" | "bdd" | "bdd-tuples"
            )
        })
        .collect();
    let (mut programs, mut bdd_conclusive, mut bdd_errors) = (0, 0, 0);
    let mut failures = Vec::new();
    for seed in 0..count {
        let Some(text) = with_bound(seed, 8) else {
            continue;
        };
        programs += 1;
        let runs = match runs_of(&text, &configs, TIMEOUT) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("seed {seed}: rejected: {e}\n{text}"));
                continue;
            }
        };
        if let Some(why) = disagreement(&runs) {
            failures.push(format!("seed {seed}: engines disagree: {why}\n{text}"));
            continue;
        }
        if let Some(bdd) = runs.iter().find(|r| r.engine == "bdd") {
            if matches!(bdd.exit_code, Some(0 | 3)) {
                bdd_conclusive += 1;
            }
            if bdd.exit_code == Some(3) {
                bdd_errors += 1;
            }
        }
    }
    eprintln!(
        "threads under context bounds: {programs} programs, bdd conclusive on {bdd_conclusive} \
         ({bdd_errors} errors)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // the comparison must not be empty: the bdd engine answers on a fair share, both ways
    assert!(
        bdd_conclusive * 4 >= programs && bdd_errors >= 5,
        "{bdd_conclusive} conclusive bdd answers ({bdd_errors} errors) of {programs}"
    );
}

/// The names of this process's threads (Linux), if they can be read.
fn leftover_threads() -> Option<Vec<String>> {
    let rd = std::fs::read_dir("/proc/self/task").ok()?;
    Some(
        rd.flatten()
            .map(|t| {
                std::fs::read_to_string(t.path().join("comm"))
                    .unwrap_or_default()
                    .trim()
                    .to_string()
            })
            .collect(),
    )
}

/// Thread names with their counts, most frequent first.
fn summarize(names: &[String]) -> Vec<(String, usize)> {
    let mut m: BTreeMap<&str, usize> = BTreeMap::new();
    for n in names {
        *m.entry(n).or_default() += 1;
    }
    let mut v: Vec<(String, usize)> = m.into_iter().map(|(k, c)| (k.to_string(), c)).collect();
    v.sort_by_key(|b| std::cmp::Reverse(b.1));
    v
}

#[test]
fn comparator_reports_contradicting_verdicts() {
    let run = |engine: &str, verdict: &str, code: i32| Run {
        engine: engine.into(),
        verdict: verdict.into(),
        exit_code: Some(code),
        seconds: 0.0,
        detail: verdict.into(),
        has_trace: code == 3,
        trace_len: 0,
        zing_states: None,
        states: 0,
    };
    let contradiction = [
        run("explicit", "passed", 0),
        run("summary", "assertion-failed", 3),
    ];
    let why = disagreement(&contradiction).expect("a contradiction is reported");
    assert!(why.contains("explicit") && why.contains("summary"), "{why}");
    // different errors are both "unsafe"; inconclusive answers are not compared
    assert!(disagreement(&[
        run("explicit", "target-reached", 3),
        run("bdd", "assertion-failed", 3),
        run("summary", "bounded", 8),
    ])
    .is_none());
    // an engine that crashes is a failure whatever the others say
    let mut crashed = run("bdd", "panic", 0);
    crashed.exit_code = None;
    assert!(disagreement(&[run("explicit", "passed", 0), crashed]).is_some());
}

#[test]
fn the_bounded_comparator_reports_what_cannot_be() {
    let run = |engine: &str, code: i32| Run {
        engine: engine.into(),
        verdict: code.to_string(),
        exit_code: Some(code),
        seconds: 0.0,
        detail: String::new(),
        has_trace: code == 3,
        trace_len: 0,
        zing_states: None,
        states: 0,
    };
    let configs = spawn_configs();
    let cmp = |runs: &[Run]| bounded_disagreement(&configs, runs);
    // coverability finds an error that three threads do not reach: no contradiction
    assert!(cmp(&[
        run("coverability", 3),
        run("explicit-threads-2", 8),
        run("explicit-threads-3", 8),
        run("explicit-threads-3-nosym", 8),
    ])
    .is_none());
    // a proof for any number of threads against an error under a bound
    assert!(cmp(&[run("coverability", 0), run("explicit-threads-2", 3)]).is_some());
    // symmetry on and off under one bound disagree
    assert!(cmp(&[
        run("explicit-threads-3", 8),
        run("explicit-threads-3-nosym", 3)
    ])
    .is_some());
    // an error with two threads that three do not reach
    assert!(cmp(&[run("explicit-threads-2", 3), run("explicit-threads-3", 8)]).is_some());
    // a limit is compared with nothing
    assert!(cmp(&[
        run("explicit-threads-3", 9),
        run("explicit-threads-3-nosym", 3)
    ])
    .is_none());
}

#[test]
fn minimizer_keeps_the_property_and_shrinks() {
    let text = random_bp(11, 10);
    // a stand-in "disagreement": the program compiles and still calls p1 somewhere
    let keep = |t: &str| {
        t.contains("p1(") && zingrs_lang::compile("m.bp", t, zingrs_lang::Lang::Bp).is_ok()
    };
    assert!(keep(&text), "seed 11 should call p1:\n{text}");
    let small = minimize(&text, &keep);
    assert!(keep(&small));
    assert!(
        small.lines().count() * 2 < text.lines().count(),
        "not much smaller:\n{small}"
    );
}

/// Random Zing models (`zingrs gen random-zing SEED`): explicit DFS, BFS and exact storage, the
/// summary engine (sequential models) and `all` must agree on every conclusive verdict
/// (passed, assertion, deadlock, runtime error). `ZINGRS_DIFF_ZING_COUNT` (default 400) models
/// from seed `ZINGRS_DIFF_ZING_START` (default 0).
#[test]
fn engines_agree_on_random_zing_models() {
    let count = env_num("ZINGRS_DIFF_ZING_COUNT", 300);
    let start = env_num("ZINGRS_DIFF_ZING_START", 0);
    let configs = differential_configs();
    let mut failures = Vec::new();
    let mut verdicts: BTreeMap<i32, usize> = BTreeMap::new();
    let mut concurrent = 0usize;
    let clock = Instant::now();
    for seed in start..start + count {
        let text = random_zing(seed);
        if is_concurrent(&text) {
            concurrent += 1;
        } else if concurrent_only() {
            continue;
        }
        let runs = match check_text("random.zing", &text, &configs, MAX_DEPTH, TIMEOUT) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("seed {seed}: rejected:\n{text}\n{e}"));
                continue;
            }
        };
        if let Some(why) = disagreement(&runs) {
            let keep = |t: &str| {
                check_text("random.zing", t, &configs, MAX_DEPTH, MIN_TIMEOUT)
                    .is_ok_and(|r| disagreement(&r).is_some())
            };
            let small = minimize(&text, &keep);
            failures.push(format!(
                "seed {seed}: engines disagree: {why}\nreplay: zingrs gen random-zing {seed} > case.zing && zingrs check --engine all case.zing\n--- model\n{text}--- minimized\n{small}"
            ));
        }
        for r in &runs {
            if let Some(c) = r.exit_code {
                *verdicts.entry(c).or_default() += 1;
            }
        }
    }
    eprintln!(
        "differential: {count} Zing models (seeds {start}..{}), {:.1} s, {concurrent} concurrent{}",
        start + count,
        clock.elapsed().as_secs_f64(),
        if concurrent_only() {
            " (only these checked)"
        } else {
            ""
        }
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // the generator must produce both passing and failing models
    assert!(verdicts.get(&0).copied().unwrap_or(0) > 0, "{verdicts:?}");
    assert!(verdicts.get(&3).copied().unwrap_or(0) > 0, "{verdicts:?}");
}

/// Threads created in a loop: coverability (any number of threads) against the explicit engine
/// deepening on the bound and under `--threads 2` and `--threads 3`, with and without
/// symmetry (see `bounded_disagreement` for what must hold).
#[test]
fn coverability_and_bounded_explicit_agree_on_threads_created_in_a_loop() {
    let count = env_num("ZINGRS_DIFF_SPAWN_COUNT", 150);
    let start = env_num("ZINGRS_DIFF_START", 0);
    let configs = spawn_configs();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    // per configuration and exit code, how many programs
    let tally: Mutex<BTreeMap<(String, i32), u64>> = Mutex::new(BTreeMap::new());
    let clock = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let seed = start + next.fetch_add(1, Ordering::Relaxed) as u64;
                if seed >= start + count {
                    break;
                }
                let text = random_spawn_bp(seed);
                let runs = match check_text("spawn.bp", &text, &configs, MAX_DEPTH, SPAWN_TIMEOUT)
                {
                    Ok(r) => r,
                    Err(e) => {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("seed {seed}: rejected:\n{text}\n{e}"));
                        continue;
                    }
                };
                if let Some(why) = bounded_disagreement(&configs, &runs) {
                    let keep = |t: &str| {
                        check_text("spawn.bp", t, &configs, MAX_DEPTH, MIN_TIMEOUT)
                            .is_ok_and(|r| bounded_disagreement(&configs, &r).is_some())
                    };
                    let small = minimize(&text, &keep);
                    failures.lock().unwrap().push(format!(
                        "seed {seed}: engines disagree: {why}\n\
                         replay: zingrs gen random-spawn-bp {seed} > case.bp && zingrs check --engine all --threads 3 case.bp\n\
                         --- program\n{text}--- minimized\n{small}"
                    ));
                }
                let mut t = tally.lock().unwrap();
                for r in &runs {
                    if let Some(c) = r.exit_code {
                        *t.entry((r.engine.clone(), c)).or_default() += 1;
                    }
                }
            });
        }
    });
    let tally = tally.into_inner().unwrap();
    eprintln!(
        "spawn-loop differential: {count} programs (seeds {start}..{}), {:.1} s",
        start + count,
        clock.elapsed().as_secs_f64()
    );
    for ((engine, code), n) in &tally {
        eprintln!("  {engine:<26} exit {code}: {n}");
    }
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {count} programs fail:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // the comparison says little unless coverability both proves and refutes, and the bounded
    // searches find errors. (Proofs: at least one program in 20. Which programs coverability
    // decides within its 2 s varies with the machine's load: 15 and 14 proofs of seeds
    // 0..150 on two runs of the same tree, 7 and 8 timeouts; one in 10 failed the CI once.)
    let n = |e: &str, c: i32| tally.get(&(e.to_string(), c)).copied().unwrap_or(0);
    if count >= 100 {
        assert!(
            n("coverability", 0) * 20 >= count && n("coverability", 3) * 10 >= count,
            "a lopsided mix of verdicts: {tally:?}"
        );
        assert!(n("explicit-threads-3", 3) * 10 >= count, "{tally:?}");
    }
}
