//! The parallel search (`--workers N`): on every regression and example that a search
//! decides, the explicit search (with its reductions, without them, with exact storage,
//! breadth-first) and the summary engine store the same number of states at several numbers
//! of workers (up to 8: oversubscribed on this project's 2-core machines) as at one, and give
//! the same verdict; every counterexample found with several workers replays (an internal
//! error, exit 5, otherwise), and the breadth-first search's is no longer than at one worker.
//! Runs in-process, two models at a time.

mod common {
    pub mod models;
}

use common::models::models;
use std::path::Path;
use std::time::Duration;
use zingrs::cli::regress::{check_text, disagreement, worker_configs, Config, Run};

/// The stack-depth bound where a model's header sets none (as `zingrs check`'s default).
const MAX_DEPTH: u32 = 1000;
/// Per configuration and model: a run stopped by it compares nothing.
const TIMEOUT: Duration = Duration::from_secs(5);

/// What one model's runs got wrong: a verdict disagreement, an internal error or panic, or
/// a state count at some number of workers other than at one.
fn problem(runs: &[Run]) -> Option<String> {
    if let Some(why) = disagreement(runs) {
        return Some(why);
    }
    let configs = worker_configs();
    for r in runs {
        let Some(c) = configs.iter().find(|c| c.name == r.engine) else {
            continue;
        };
        if c.workers() == 1 {
            continue;
        }
        let base = c.base_name().to_string() + "-w1";
        let Some(one) = runs.iter().find(|o| o.engine == base) else {
            continue;
        };
        // the breadth-first search's counterexample at several workers is a shortest one: as
        // long as at one worker, or shorter where the single worker's first error of a level
        // came of a chained transaction (several steps taken as one)
        if c.bfs() && one.exit_code == r.exit_code && r.trace_len > one.trace_len {
            return Some(format!(
                "{}: a counterexample of {} steps, {} at one worker",
                r.engine, r.trace_len, one.trace_len
            ));
        }
        // counts of complete searches only: a search that stops at an error stops at a point
        // that depends on the order, and a limit's too
        if !matches!(r.exit_code, Some(0 | 8)) {
            continue;
        }
        if one.exit_code == r.exit_code && one.states != r.states {
            return Some(format!(
                "{}: {} states, {} at one worker",
                r.engine, r.states, one.states
            ));
        }
        if one.exit_code != r.exit_code && matches!(one.exit_code, Some(0 | 8)) {
            return Some(format!(
                "{}: exit {:?}, {:?} at one worker",
                r.engine, r.exit_code, one.exit_code
            ));
        }
    }
    None
}

/// A model's runs: the reduced explicit search at one worker first, then every other
/// configuration at one worker, then at several workers only where the one-worker run ended
/// without a limit. A run cut by the timeout is compared with nothing, and the searches that
/// never end (unbounded thread creation with no error, which only coverability decides) would
/// otherwise cost the timeout in every configuration; where the reduced search cannot end
/// within it, the unreduced and exact ones cannot either.
fn runs_of(name: &str, text: &str, configs: &[Config]) -> Option<Vec<Run>> {
    let (first, rest): (Vec<_>, Vec<_>) = configs
        .iter()
        .cloned()
        .partition(|c| c.name == "explicit-w1");
    let mut runs = check_text(name, text, &first, MAX_DEPTH, TIMEOUT).ok()?;
    if runs.iter().any(|r| r.exit_code == Some(9)) {
        return Some(runs);
    }
    let (ones, more): (Vec<_>, Vec<_>) = rest.into_iter().partition(|c| c.workers() == 1);
    runs.extend(check_text(name, text, &ones, MAX_DEPTH, TIMEOUT).ok()?);
    let ended = |base: &str| {
        runs.iter()
            .any(|r| r.engine == format!("{base}-w1") && r.exit_code != Some(9))
    };
    let more: Vec<_> = more.into_iter().filter(|c| ended(c.base_name())).collect();
    if !more.is_empty() {
        runs.extend(check_text(name, text, &more, MAX_DEPTH, TIMEOUT).ok()?);
    }
    Some(runs)
}

fn check(dirs: &[&str]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in dirs {
        models(&root.join(d), &mut files);
    }
    let configs = worker_configs();
    let compared = std::sync::atomic::AtomicUsize::new(0);
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|k| {
                let (files, configs, compared) = (&files, &configs, &compared);
                s.spawn(move || {
                    let mut fails = Vec::new();
                    for f in files.iter().skip(k).step_by(2) {
                        let text = std::fs::read_to_string(f).expect("readable model");
                        if text.contains("expect: invalid") {
                            continue;
                        }
                        let name = f.display().to_string();
                        let Some(runs) = runs_of(&name, &text, configs) else {
                            continue;
                        };
                        compared.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if let Some(why) = problem(&runs) {
                            fails.push(format!("{name}: {why}"));
                        }
                    }
                    fails
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("test thread"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} model(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    let n = compared.into_inner();
    assert!(n >= 5, "only {n} models compared under {dirs:?}");
}

#[test]
fn zing_models_store_the_same_states_at_any_number_of_workers() {
    check(&["regressions/zing"]);
}

#[test]
fn boolean_programs_store_the_same_states_at_any_number_of_workers() {
    check(&["regressions/bp", "regressions/bp-threads", "examples"]);
}

fn zingrs(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_zingrs"))
        .args(args)
        .output()
        .expect("zingrs runs")
}

/// `--max-states` holds across workers (depth-first and breadth-first): each publishes its
/// count in batches small enough that all of them together pass the limit by at most 5 %.
#[test]
fn the_state_limit_holds_across_workers() {
    let model = zingrs(&["gen", "philosophers-ordered", "7"]);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-workers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("po7.zing");
    std::fs::write(&path, &model.stdout).unwrap();
    let p = path.to_str().unwrap();
    // the depth-first search, and the breadth-first one (level by level)
    for (w, order) in [
        ("1", ""),
        ("2", ""),
        ("8", ""),
        ("2", "--bfs"),
        ("8", "--bfs"),
    ] {
        let mut args = vec![
            "check",
            p,
            "--engine",
            "explicit",
            "--reduction",
            "none",
            "--workers",
            w,
            "--max-states",
            "20000",
            "--format",
            "json",
        ];
        if !order.is_empty() {
            args.push(order);
        }
        let out = zingrs(&args);
        assert_eq!(out.status.code(), Some(9), "workers {w} {order}");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let states = json["stats"]["states"].as_u64().unwrap();
        assert!(
            (20_000..=21_000).contains(&states),
            "workers {w} {order}: {states} states"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_number_of_workers_is_a_usage_error() {
    for bad in ["0", "many", "100000"] {
        let out = zingrs(&["check", "examples/bebop-fig1.bp", "--workers", bad]);
        assert_eq!(out.status.code(), Some(7), "--workers {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--workers"), "{err}");
    }
}

/// A state handed between workers travels as a copy, not as its path re-executed: with the
/// search's self-check on, the worker that takes it re-executes the path as well and panics
/// unless the two agree. Deep searches (philosophers unreduced) and models with call
/// summaries, heaps and threads ending, oversubscribed at 4 workers; the counts are those of
/// one worker.
#[test]
fn handed_over_states_are_the_states_their_paths_reach() {
    use zingrs::explore::ExplicitOptions;
    use zingrs::runtime::{Machine, Semantics};
    use zingrs::search::{Limits, Options, Reduction};
    use zingrs_lang::Lang;
    let mut models = vec![
        (
            "po5".to_string(),
            zingrs::gen::families::philosophers(5, true),
            Lang::Zing,
        ),
        (
            "clone".to_string(),
            zingrs::gen::families::zing_clone(4),
            Lang::Zing,
        ),
        (
            "alloc".to_string(),
            zingrs::gen::families::zing_alloc(),
            Lang::Zing,
        ),
    ];
    // call summaries below a node handed over by its positions: the path to it holds the
    // giver's macro steps, which the taker must not see (they index the giver's summaries);
    // the handovers depend on timing, so a few rounds
    for round in 0..8 {
        models.push((
            format!("summarized calls between threads, round {round}"),
            include_str!("../regressions/zing/summary_private_calls_between_threads.zing").into(),
            Lang::Zing,
        ));
    }
    for seed in 0..10 {
        let z = zingrs::gen::random_zing(seed);
        models.push((format!("random-zing {seed}"), z, Lang::Zing));
        let b = zingrs::gen::random_bp(seed, 8);
        models.push((format!("random-bp {seed}"), b, Lang::Bp));
    }
    let mut handed = 0;
    for (name, text, lang) in &models {
        let Ok(compiled) = zingrs_lang::compile(name, text, *lang) else {
            continue;
        };
        let program = compiled.program;
        let semantics = Semantics {
            thread_bound: zingrs_lang::spawn::unbounded_creation(&program).then_some(3),
            ..Semantics::default()
        };
        let m = Machine::new(&program, semantics);
        for (reduction, tx) in [
            (Reduction::None, false),
            (Reduction::All, false),
            (Reduction::None, true),
            (Reduction::All, true),
        ] {
            let opts = Options {
                limits: Limits {
                    max_depth: 200,
                    max_states: Some(5_000),
                    ..Limits::default()
                },
                keep_going: true,
                ..Options::default()
            };
            let how = |workers| ExplicitOptions {
                reduction,
                workers,
                check_fingerprints: true,
                transactions: tx.then_some(zingrs::summary::summarize_transaction),
                ..ExplicitOptions::default()
            };
            let one = zingrs::explore::search(&m, &opts, &how(1));
            let four = zingrs::explore::search(&m, &opts, &how(4));
            if one.limit.is_none() && four.limit.is_none() {
                assert_eq!(
                    one.stats.states, four.stats.states,
                    "{name} {reduction:?} transactions {tx}"
                );
            }
            handed += four.stats.workers.iter().map(|w| w.taken).sum::<u64>();
        }
    }
    assert!(handed > 0, "no state was handed over");
}

/// `--stats` with several workers: the speed-up (the workers' CPU time over the wall time) and
/// each worker's counts; one worker has no speed-up to report (JSON `null`).
#[test]
fn statistics_give_the_speed_up_and_each_worker() {
    let model = zingrs(&["gen", "philosophers-ordered", "5"]);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-speedup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("po5.zing");
    std::fs::write(&path, &model.stdout).unwrap();
    let p = path.to_str().unwrap();
    let base = ["check", p, "--engine", "explicit", "--reduction", "none"];
    let two = zingrs(&[&base[..], &["--workers", "2", "--format", "json"]].concat());
    assert_eq!(two.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&two.stdout).unwrap();
    let speedup = json["stats"]["speedup"].as_f64().expect("a speed-up");
    assert!(speedup > 0.0 && speedup <= 2.5, "{speedup}");
    let names: Vec<&str> = json["stats"]["counters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for n in [
        "worker_1_states",
        "worker_1_taken",
        "worker_1_idle_ms",
        "worker_1_cpu_ms",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    let text = zingrs(&[&base[..], &["--workers", "2", "--stats"]].concat());
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(out.contains("speed-up "), "{out}");
    let one = zingrs(&[&base[..], &["--format", "json"]].concat());
    let json: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert!(json["stats"]["speedup"].is_null());
    let _ = std::fs::remove_dir_all(&dir);
}

/// With several workers, a task's search goes a bounded depth below its root and leaves the
/// successors deeper down as tasks of their own (while the pool is short), with the trail
/// (the parent task's trail and the steps since) that reaches them. With a small bound, the
/// count stays one worker's and every taken task's trail, put together from its links and
/// the marks along a stack hundreds of nodes deep, reaches its state (the search's
/// self-check re-executes it); and an assertion 300 iterations down a single thread, which
/// the search reaches through dozens of tasks one below the other, comes with a
/// counterexample that replays to it.
#[test]
fn deep_searches_split_into_tasks_keep_their_counts_and_paths() {
    use zingrs::explore::ExplicitOptions;
    use zingrs::runtime::{Machine, Semantics};
    use zingrs::search::{Limits, Options, Reduction};
    use zingrs_lang::Lang;
    let how = |workers| ExplicitOptions {
        reduction: Reduction::None,
        workers,
        handoff_depth: Some(8),
        check_fingerprints: true,
        ..ExplicitOptions::default()
    };
    let opts = Options {
        limits: Limits {
            max_depth: 1000,
            ..Limits::default()
        },
        ..Options::default()
    };
    let po5 = zingrs::gen::families::philosophers(5, true);
    let program = zingrs_lang::compile("po5", &po5, Lang::Zing)
        .unwrap()
        .program;
    let m = Machine::new(&program, Semantics::default());
    let one = zingrs::explore::search(&m, &opts, &how(1));
    for round in 0..4 {
        let two = zingrs::explore::search(&m, &opts, &how(2));
        assert!(one.findings.is_empty() && two.findings.is_empty());
        assert_eq!(one.stats.states, two.stats.states, "round {round}");
        // the first task's search meets the bound with the pool empty
        let handed: u64 = two.stats.workers.iter().map(|w| w.handed_off).sum();
        assert!(handed > 0, "round {round}: no task left at the depth bound");
    }

    // one thread, no other choice: every task's search leaves its one successor 8 steps down
    let deep = "class Main {
        static int n;
        activate static void count() {
            while (n < 300) { n = n + 1; }
            assert(false);
        }
    };";
    let program = zingrs_lang::compile("deep", deep, Lang::Zing)
        .unwrap()
        .program;
    let m = Machine::new(&program, Semantics::default());
    for round in 0..4 {
        let r = zingrs::explore::search(&m, &opts, &how(2));
        let handed: u64 = r.stats.workers.iter().map(|w| w.handed_off).sum();
        assert!(handed >= 300 / 8, "round {round}: {handed} tasks");
        let [f] = &r.findings[..] else {
            panic!("round {round}: {} findings", r.findings.len());
        };
        let claim = zingrs::report::Claim::of_finding(f);
        assert!(matches!(claim, zingrs::report::Claim::Assertion));
        let path = f.path();
        assert!(path.choices.len() > 300, "a path of {}", path.choices.len());
        let replayed = zingrs::search::replay(&m, path).expect("the counterexample replays");
        zingrs::report::verify(&m, path, &replayed, &claim).expect("it ends in the assertion");
    }
}

/// Under `--seed` a node's successors come in an order drawn from the node's depth and the
/// step that reached it, and a node's pending positions handed to another worker name its
/// outcomes in that order: the taker, for which the node is the bottom of its stack, lists
/// it in the giver's order, or it would search the wrong successors and lose the others.
/// Every run stores the one-worker count, with and without a seed, at 2 and 4 workers
/// (timing decides the handovers, so several rounds; the depth bound is small so that tasks
/// are many).
#[test]
fn seeded_orders_store_the_same_states_at_any_number_of_workers() {
    use zingrs::explore::ExplicitOptions;
    use zingrs::runtime::{Machine, Semantics};
    use zingrs::search::swarm::Swarm;
    use zingrs::search::{Options, Reduction};
    use zingrs_lang::Lang;
    let po6 = zingrs::gen::families::philosophers(6, true);
    let program = zingrs_lang::compile("po6", &po6, Lang::Zing)
        .unwrap()
        .program;
    let m = Machine::new(&program, Semantics::default());
    let opts = Options::default();
    let mut positions = 0;
    for seed in [None, Some(1), Some(2)] {
        let how = |workers| ExplicitOptions {
            reduction: Reduction::None,
            workers,
            handoff_depth: Some(16),
            swarm: Swarm {
                seed,
                random: false,
            },
            ..ExplicitOptions::default()
        };
        let one = zingrs::explore::search(&m, &opts, &how(1));
        assert!(one.findings.is_empty() && one.limit.is_none());
        for (round, workers) in [2, 4, 2, 4].into_iter().enumerate() {
            let r = zingrs::explore::search(&m, &opts, &how(workers));
            assert!(r.findings.is_empty() && r.limit.is_none());
            assert_eq!(
                r.stats.states, one.stats.states,
                "seed {seed:?}, {workers} workers, round {round}"
            );
            positions += r.stats.workers.iter().map(|w| w.given).sum::<u64>();
        }
    }
    assert!(
        positions > 0,
        "no node's work was handed to a waiting worker"
    );
}

/// The breadth-first search's workers decide together, after each level's barrier, whether
/// a limit stops them: a worker that read the shared stop flag late, after a faster one had
/// met the limit in the next level, once returned alone, and the others waited for it at the
/// next barrier forever (seen once in this file's CLI test, 8 workers on 2 cores). Many
/// oversubscribed runs, each of which must end at the limit within seconds.
#[test]
fn a_limit_stops_every_breadth_first_worker_together() {
    use zingrs::explore::ExplicitOptions;
    use zingrs::runtime::{Machine, Semantics};
    use zingrs::search::{Limits, Options, Reduction};
    use zingrs_lang::Lang;
    let po6 = zingrs::gen::families::philosophers(6, true);
    let program = zingrs_lang::compile("po6", &po6, Lang::Zing)
        .unwrap()
        .program;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let m = Machine::new(&program, Semantics::default());
        for run in 0..200u64 {
            let opts = Options {
                limits: Limits {
                    max_states: Some(500 + 37 * run),
                    ..Limits::default()
                },
                ..Options::default()
            };
            let how = ExplicitOptions {
                reduction: Reduction::None,
                workers: 8,
                bfs: true,
                ..ExplicitOptions::default()
            };
            let r = zingrs::explore::search(&m, &opts, &how);
            if tx.send((run, r.limit.is_some())).is_err() {
                return;
            }
        }
    });
    for _ in 0..200 {
        let (run, limited) = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("a breadth-first run with a state limit ends");
        assert!(limited, "run {run} ended without its limit");
    }
}
