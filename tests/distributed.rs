//! The distributed breadth-first search (`check --processes N`): several processes of the
//! built binary over loopback (on ports the test finds free, given in a host file) store
//! exactly the states one process's `--bfs` stores, give its verdict on every process (the
//! others print nothing), report a counterexample as long as its shortest one that replays;
//! a process killed mid-run ends the others with exit 9 and a message naming it, within
//! seconds (and a library caller's search with `CheckError::Incomplete`, its process going
//! on); options the distributed search does not take are refused (exit 7).

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::{err, zingrs};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn root(rel: &str) -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/").to_string() + rel
}

/// A host file for `n` processes on loopback, on ports free right now (bound to port 0 and
/// let go).
fn hostfile(dir: &tempfile::TempDir, n: usize) -> String {
    let listeners: Vec<std::net::TcpListener> = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let text: String = listeners
        .iter()
        .map(|l| format!("127.0.0.1:{}\n", l.local_addr().expect("an address").port()))
        .collect();
    let path = dir.path().join(format!("hosts-{n}.txt"));
    std::fs::write(&path, text).expect("the host file");
    path.display().to_string()
}

/// Starts process `i` of `n` on `model` with `args`.
fn start(model: &str, n: usize, i: usize, hosts: &str, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_zingrs"))
        .args(["check", model, "--processes", &n.to_string(), "--process"])
        .arg(i.to_string())
        .args(["--hostfile", hosts, "--timeout", "60"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("zingrs starts")
}

/// Runs `n` processes on `model` and returns their outputs, process 0 first.
fn cluster(model: &str, n: usize, args: &[&str]) -> Vec<Output> {
    let dir = tempfile::tempdir().expect("a directory");
    let hosts = hostfile(&dir, n);
    // the last first: process 0 waits for the others to connect
    let children: Vec<Child> = (0..n)
        .rev()
        .map(|i| start(model, n, i, &hosts, args))
        .collect();
    let mut outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("zingrs ends"))
        .collect();
    outs.reverse();
    // process 0's report is a report like any other
    common::schema::check_text(&outs[0].stdout);
    outs
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}{}", common::run::out(o), err(o)))
}

/// Exit code, stored states and counterexample steps of a report.
fn summary(o: &Output) -> (i32, u64, usize) {
    let j = json(o);
    (
        o.status.code().expect("an exit code"),
        j["stats"]["states"].as_u64().expect("a state count"),
        j["trace"]["steps"].as_array().map_or(0, Vec::len),
    )
}

const MODELS: &[&str] = &[
    "examples/philosophers-ordered-3.zing",
    "examples/bluetooth-fixed.zing",
    "examples/bluetooth.zing",
    "examples/philosophers-3.zing",
    "examples/bebop-fig1.bp",
    "regressions/zing/chan_producer_consumer_in_order.zing",
    "regressions/zing/deadlock_three_process_cycle.zing",
    "regressions/zing/array_fixed_index_out_of_range.zing",
    "regressions/bp-threads/a18_atomic_section.bp",
];

#[test]
fn processes_store_and_find_what_one_process_does() {
    for model in MODELS {
        let model = root(model);
        let one = zingrs(&[
            "check", &model, "--engine", "explicit", "--bfs", "--format", "json",
        ]);
        let (code, states, steps) = summary(&one);
        for (n, extra) in [(1, &["--workers", "2"][..]), (2, &[][..]), (3, &[][..])] {
            let mut args = vec!["--format", "json"];
            args.extend(extra);
            let outs = cluster(&model, n, &args);
            let (c, s, st) = summary(&outs[0]);
            let what = format!("{model} on {n} process(es) {extra:?}: {}", err(&outs[0]));
            assert_eq!(c, code, "{what}");
            if code == 0 || code == 8 {
                // a complete search stores every state, wherever
                assert_eq!(s, states, "{what}");
            } else {
                // a shortest counterexample, replayed
                assert_eq!(st, steps, "{what}");
            }
            for (i, o) in outs.iter().enumerate().skip(1) {
                assert_eq!(
                    o.status.code(),
                    Some(code),
                    "{what}: process {i}: {}",
                    err(o)
                );
                assert!(o.stdout.is_empty(), "{what}: process {i} printed");
            }
        }
    }
}

#[test]
fn the_report_of_process_0_replays() {
    let dir = tempfile::tempdir().expect("a directory");
    let report = dir.path().join("r.json").display().to_string();
    let model = root("examples/bluetooth.zing");
    let outs = cluster(&model, 2, &["-q", "-o", &report]);
    assert_eq!(outs[0].status.code(), Some(3), "{}", err(&outs[0]));
    let r = zingrs(&["replay", &model, &report]);
    assert_eq!(r.status.code(), Some(3), "{}", err(&r));
}

/// A model that takes a few seconds on two processes.
fn long_model(dir: &tempfile::TempDir) -> String {
    let g = zingrs(&["gen", "philosophers-ordered", "9"]);
    let path = dir.path().join("po9.zing");
    std::fs::write(&path, &g.stdout).expect("the model");
    path.display().to_string()
}

fn wait_at_most(c: &mut Child, limit: Duration) -> Option<(i32, String)> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = c.try_wait().expect("waits") {
            let mut e = String::new();
            if let Some(mut s) = c.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut s, &mut e);
            }
            return Some((status.code().unwrap_or(-1), e));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = c.kill();
    None
}

#[test]
fn a_killed_process_ends_the_others_inconclusive() {
    let dir = tempfile::tempdir().expect("a directory");
    let model = long_model(&dir);
    for victim in [1usize, 0] {
        let hosts = hostfile(&dir, 2);
        let mut kids: Vec<Child> = (0..2)
            .rev()
            .map(|i| start(&model, 2, i, &hosts, &["-q", "--reduction", "none"]))
            .collect();
        kids.reverse();
        // connected and searching by then (the search takes a minute on two processes)
        std::thread::sleep(Duration::from_millis(2500));
        kids[victim].kill().expect("killed");
        let _ = kids[victim].wait();
        let other = 1 - victim;
        let (code, stderr) = wait_at_most(&mut kids[other], Duration::from_secs(10))
            .unwrap_or_else(|| {
                panic!("process {other} still runs 10 s after process {victim} was killed")
            });
        assert_eq!(code, 9, "{stderr}");
        assert!(
            stderr.contains(&format!("lost its connection to process {victim}")),
            "{stderr}"
        );
    }
}

#[test]
fn what_the_distributed_search_does_not_do_is_refused() {
    let model = root("examples/philosophers-3.zing");
    for extra in [
        &["--processes", "2", "--process", "2"][..],
        &["--processes", "1", "--engine", "summary"],
        &["--processes", "1", "--search", "dfs"],
        &["--processes", "1", "--keep-going"],
        &["--processes", "1", "--exact"],
        &["--processes", "1", "--liveness"],
        &["--process", "1"],
    ] {
        let mut args = vec!["check", model.as_str()];
        args.extend(extra);
        let o = zingrs(&args);
        assert_eq!(o.status.code(), Some(7), "{extra:?}: {}", err(&o));
    }
}

#[test]
fn processes_checking_different_models_refuse_each_other() {
    let dir = tempfile::tempdir().expect("a directory");
    let hosts = hostfile(&dir, 2);
    let a = root("examples/philosophers-3.zing");
    let b = root("examples/philosophers-ordered-3.zing");
    let p1 = start(&b, 2, 1, &hosts, &[]);
    let p0 = start(&a, 2, 0, &hosts, &[]);
    for p in [p0, p1] {
        let o = p.wait_with_output().expect("ends");
        assert_eq!(o.status.code(), Some(9), "{}", err(&o));
        assert!(err(&o).contains("another model"), "{}", err(&o));
    }
}

/// A state sent to its owner carries its canon's numbering (so that the owner need not walk
/// it again) and is decoded sharing the parts of states decoded before: under symmetry, with
/// objects the threads hold (the numbering then follows the threads' canonical order), the
/// successors of such a state must be fingerprinted as the whole walk fingerprints them
/// (`check_fingerprints` panics otherwise), the counts must be the single `--bfs`'s and the
/// counterexample the same at any number of workers, whether successors for another
/// worker's shard stay with the worker that reached them (claims) or all cross whole.
/// Several workers of one process exchange states as processes do (encoded), without the
/// network.
#[test]
fn states_sent_between_workers_are_fingerprinted_as_one_walk_does() {
    use zingrs::explore::{search, Cluster, ExplicitOptions};
    use zingrs::runtime::{Machine, Semantics};
    use zingrs::search::{Options, Reduction};
    let deadlock =
        std::fs::read_to_string(root("regressions/zing/deadlock_three_process_cycle.zing"))
            .expect("the regression");
    let models = [
        ("owners", zingrs::gen::families::owners(3)),
        ("lockers", zingrs::gen::families::lockers(3)),
        ("deadlock", deadlock),
    ];
    // successors a worker reached again in a level, sent without their state (a better
    // parent in place, or `Msg::Better`): the counts and the path above hold with them
    let mut resent = 0;
    for (name, text) in &models {
        let program = zingrs_lang::compile(name, text, zingrs_lang::Lang::Zing)
            .expect("compiles")
            .program;
        let m = Machine::new(&program, Semantics::default());
        let opts = Options::default();
        for symmetry in [true, false] {
            let how = |workers: usize, claims: bool| ExplicitOptions {
                bfs: true,
                symmetry,
                reduction: Reduction::None,
                check_fingerprints: true,
                workers,
                distributed: (workers > 0).then(|| Cluster {
                    // claims on every level (these models' levels are all narrow), or none
                    narrow: if claims { 0 } else { u64::MAX },
                    ..Cluster::loopback(1, 0, 2101).expect("a cluster")
                }),
                ..ExplicitOptions::default()
            };
            let one = search(&m, &opts, &how(0, true));
            let mut path = None;
            for workers in [1, 2, 3] {
                for claims in [true, false] {
                    let r = search(&m, &opts, &how(workers, claims));
                    let what =
                        format!("{name}, symmetry {symmetry}, {workers} workers, claims {claims}");
                    assert_eq!(r.findings.len(), one.findings.len(), "{what}");
                    if one.findings.is_empty() {
                        assert_eq!(r.stats.states, one.stats.states, "{what}");
                    }
                    if let (Some(f), Some(g)) = (r.findings.first(), one.findings.first()) {
                        // a shortest counterexample, the same one at any number of workers
                        assert_eq!(f.path().choices.len(), g.path().choices.len(), "{what}");
                        let p = format!("{:?}", f.path());
                        assert_eq!(path.get_or_insert_with(|| p.clone()), &p, "{what}");
                    }
                    if workers > 1 {
                        let counter = |name: &str| {
                            r.stats
                                .counters
                                .iter()
                                .find(|c| c.0 == name)
                                .map_or(0, |c| c.1)
                        };
                        // sent whole: all of them without claims; with claims, at least
                        // those that even out the workers' shares (all start at one)
                        let sent = counter("states sent to another worker");
                        assert!(sent > 0, "{what}: nothing sent whole");
                        let claimed = counter("successors claimed and kept by their sender");
                        assert_eq!(claimed > 0, claims, "{what}: {claimed} claimed");
                        let held = counter("states expanded by the worker that reached them");
                        assert_eq!(held > 0, claims, "{what}: {held} expanded where reached");
                        resent += counter("successors not sent again");
                    }
                }
            }
        }
    }
    assert!(
        resent > 0,
        "no successor was reached twice by a worker in a level"
    );
}

/// A cluster that cannot form (here: this process's own address is taken) is no verdict:
/// the library returns [`zingrs::check::CheckError::Incomplete`] (the command line's exit 9,
/// inconclusive) and the calling process goes on.
#[test]
fn a_cluster_that_cannot_form_is_an_error_for_the_caller() {
    use zingrs::check::{CheckError, CheckOptions};
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = taken.local_addr().expect("an address").port();
    let text = std::fs::read_to_string(root("examples/philosophers-3.zing")).expect("readable");
    let parsed =
        zingrs::parse_str("philosophers-3.zing", &text, zingrs::Lang::Zing).expect("parses");
    let mut cluster = zingrs::explore::Cluster::loopback(2, 0, port).expect("a cluster");
    cluster.connect_timeout = Duration::from_secs(2);
    let opts = CheckOptions {
        distributed: Some(cluster),
        trace: false,
        ..CheckOptions::default()
    };
    let started = Instant::now();
    match zingrs::check(&parsed.program, &opts) {
        Err(e @ CheckError::Incomplete(_)) => {
            assert_eq!(e.exit_code(), 9, "{e}");
            assert!(e.to_string().contains(&port.to_string()), "{e}");
        }
        other => panic!(
            "expected an incomplete check, got {:?}",
            other.map(|r| r.exit_code)
        ),
    }
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// A peer killed mid-run ends the search of a library caller with
/// [`zingrs::check::CheckError::Incomplete`] (the command line's exit 9) naming the peer,
/// within seconds, and the calling process goes on (it is this test's).
#[test]
fn a_killed_peer_is_an_error_for_the_library_caller() {
    use zingrs::check::{CheckError, CheckOptions};
    let dir = tempfile::tempdir().expect("a directory");
    let model = long_model(&dir);
    let hosts = hostfile(&dir, 2);
    let mut peer = start(&model, 2, 1, &hosts, &["-q", "--reduction", "none"]);
    let text = std::fs::read_to_string(&model).expect("readable");
    let parsed = zingrs::parse_str("po9.zing", &text, zingrs::Lang::Zing).expect("parses");
    let hostfile_text = std::fs::read_to_string(&hosts).expect("the host file");
    let cluster =
        zingrs::explore::Cluster::from_hostfile(&hostfile_text, 2, 0, 2101).expect("a cluster");
    let opts = CheckOptions {
        distributed: Some(cluster),
        // the peer's options: processes that disagree refuse each other
        reduction: Some(zingrs::search::Reduction::None),
        trace: false,
        ..CheckOptions::default()
    };
    let killed = std::sync::Arc::new(std::sync::Mutex::new(None::<Instant>));
    let kill_at = killed.clone();
    let killer = std::thread::spawn(move || {
        // connected and searching by then (the search takes a minute on two processes)
        std::thread::sleep(Duration::from_millis(3000));
        peer.kill().expect("killed");
        *kill_at.lock().expect("the time") = Some(Instant::now());
        let _ = peer.wait();
    });
    let result = zingrs::check(&parsed.program, &opts);
    let ended = Instant::now();
    killer.join().expect("the killer");
    let killed = killed
        .lock()
        .expect("the time")
        .expect("killed before the end");
    match result {
        Err(e @ CheckError::Incomplete(_)) => {
            assert_eq!(e.exit_code(), 9, "{e}");
            assert!(
                e.to_string().contains("lost its connection to process 1"),
                "{e}"
            );
        }
        other => panic!(
            "expected an incomplete check, got {:?}",
            other.map(|r| r.exit_code)
        ),
    }
    assert!(
        ended.duration_since(killed) < Duration::from_secs(10),
        "the search ended {:?} after the peer was killed",
        ended.duration_since(killed)
    );
}
