//! The concurrent Getafix-layout families (`zingrs gen fib-bp N`, `zingrs gen bluetooth-bp A
//! S`) checked under context bounds: reached (exit 3) from the smallest sufficient K on, and
//! cut by the bound (exit 8) below it. The expected Ks are derived in `src/gen/concurrent.rs`
//! (fib: 2N − 1; Bluetooth: seed 002 Figure 3's Reachable column).

use std::path::PathBuf;
use std::process::Command;

fn zingrs(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_zingrs"))
        .args(args)
        .output()
        .expect("runs zingrs")
}

/// Writes `zingrs gen ARGS` to a file named after the arguments.
fn generate(args: &[&str]) -> PathBuf {
    let out = zingrs(&[&["gen"], args].concat());
    assert_eq!(out.status.code(), Some(0), "gen {args:?} failed");
    let dir = std::env::temp_dir().join(format!("zingrs-families-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{}.bp", args.join("_")));
    std::fs::write(&path, &out.stdout).expect("write model");
    path
}

/// Exit codes of `check --target SLIC_ERROR --contexts K` for K in `ks`.
fn codes(model: &std::path::Path, ks: std::ops::RangeInclusive<u32>, extra: &[&str]) -> Vec<i32> {
    ks.map(|k| {
        let k = k.to_string();
        let path = model.to_str().expect("utf-8 path");
        let mut args = vec!["check", "-q", "--target", "SLIC_ERROR", "--contexts", &k];
        args.extend_from_slice(extra);
        args.push(path);
        zingrs(&args).status.code().expect("exit code")
    })
    .collect()
}

/// Exit 8 below `first`, 3 from `first` on (`None`: never reached).
fn expected(ks: std::ops::RangeInclusive<u32>, first: Option<u32>) -> Vec<i32> {
    ks.map(|k| if first.is_some_and(|f| k >= f) { 3 } else { 8 })
        .collect()
}

#[test]
fn bluetooth_matches_figure_3() {
    for (a, s, first) in [
        ("1", "1", None),
        ("1", "2", Some(3)),
        ("2", "1", Some(4)),
        ("2", "2", Some(3)),
    ] {
        let model = generate(&["bluetooth-bp", a, s]);
        for mode in [&[][..], &["--bfs"][..]] {
            assert_eq!(
                codes(&model, 1..=6, mode),
                expected(1..=6, first),
                "bluetooth-bp {a} {s} {mode:?}"
            );
        }
    }
}

#[test]
fn bluetooth_with_one_adder_and_one_stopper_passes_unbounded() {
    let model = generate(&["bluetooth-bp", "1", "1"]);
    let out = zingrs(&[
        "check",
        "-q",
        "--target",
        "SLIC_ERROR",
        model.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn fib_needs_full_alternation() {
    for n in 1..=3u32 {
        let model = generate(&["fib-bp", &n.to_string()]);
        let top = 2 * n + 1;
        assert_eq!(
            codes(&model, 0..=top, &[]),
            expected(0..=top, Some(2 * n - 1)),
            "fib-bp {n}"
        );
    }
}

#[test]
fn only_bluetooth_takes_two_numbers() {
    let out = zingrs(&["gen", "fib-bp", "2", "3"]);
    assert_eq!(out.status.code(), Some(7));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only bluetooth-bp"));
}
