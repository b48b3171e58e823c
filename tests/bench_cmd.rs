//! The benchmark families (`zingrs gen FAMILY N`) have the verdicts benchmarks.md states, and
//! `zingrs bench` prints its table, slopes, CSV and SVG plot.

use std::path::{Path, PathBuf};
use std::process::Command;

fn zingrs() -> Command {
    Command::new(env!("CARGO_BIN_EXE_zingrs"))
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-bench-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Generates `family n` (`family` alone for the single-model families), checks it, and
/// returns the exit code of the check.
fn check_family(dir: &Path, family: &str, n: u64, ext: &str, extra: &[&str]) -> i32 {
    let single = ["zing-alloc", "zing-patterns"].contains(&family);
    let size = n.to_string();
    let args: &[&str] = if single {
        &["gen", family]
    } else {
        &["gen", family, &size]
    };
    let out = zingrs().args(args).output().unwrap();
    assert!(out.status.success(), "gen {family} {n} failed");
    let path = dir.join(format!("{family}-{n}.{ext}"));
    std::fs::write(&path, &out.stdout).unwrap();
    let st = zingrs()
        .arg("check")
        .arg(&path)
        .args(["-q"])
        .args(extra)
        .output()
        .unwrap();
    st.status.code().unwrap()
}

#[test]
fn every_family_has_its_verdict() {
    let dir = scratch("verdicts");
    let cases: &[(&str, u64, &str, &[&str], i32)] = &[
        ("bebop-t", 3, "bp", &["--target", "reach"], 3),
        (
            "bebop-t",
            3,
            "bp",
            &["--target", "reach", "--engine", "bdd"],
            3,
        ),
        ("zing-clone", 4, "zing", &[], 0),
        ("zing-clone", 4, "zing", &["--engine", "explicit"], 0),
        ("zing-alloc", 0, "zing", &[], 0),
        ("zing-patterns", 0, "zing", &[], 3),
        ("zing-patterns", 0, "zing", &["--engine", "explicit"], 3),
        ("bp-parity", 6, "bp", &[], 0),
        ("bp-parity", 6, "bp", &["--engine", "bdd"], 0),
        ("philosophers", 3, "zing", &[], 2),
        ("philosophers-ordered", 3, "zing", &[], 0),
    ];
    for (family, n, ext, extra, want) in cases {
        let got = check_family(&dir, family, *n, ext, extra);
        assert_eq!(got, *want, "{family} {n} {extra:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn parity_xor_is_balanced_at_large_k() {
    // A flat xor of 600 globals would exceed the parser's nesting bound of 256.
    let dir = scratch("parity");
    let out = zingrs().args(["gen", "bp-parity", "600"]).output().unwrap();
    let path = dir.join("p.bp");
    std::fs::write(&path, &out.stdout).unwrap();
    let st = zingrs().args(["cfg"]).arg(&path).output().unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_family_is_rejected() {
    let st = zingrs()
        .args(["gen", "no-such-family", "3"])
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(7));
    let st = zingrs()
        .args(["bench", "no-such-family", "--sizes", "3"])
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(7));
}

#[test]
fn bench_table_csv_and_plot() {
    let dir = scratch("bench");
    let base = [
        "bench",
        "bebop-t",
        "--sizes",
        "4,8",
        "--engine",
        "summary,bdd",
        "--repeat",
        "1",
    ];

    let svg = dir.join("plot.svg");
    let out = zingrs()
        .args(base)
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("target-reached"))
        .collect();
    assert_eq!(rows.len(), 4, "{text}");
    assert!(rows.iter().any(|l| l.contains("summary")), "{text}");
    assert!(rows.iter().any(|l| l.contains("bdd")), "{text}");
    assert!(text.contains("slope summary:"), "{text}");
    assert!(text.contains("slope bdd:"), "{text}");
    assert!(text.contains("speed-up over summary"), "{text}");
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(
        plot.starts_with("<svg") || plot.starts_with("<?xml"),
        "{plot:.100}"
    );

    let out = zingrs().args(base).arg("--csv").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let data: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(data.len(), 4, "{text}");
    for r in &data {
        assert_eq!(r.len(), header.len(), "{text}");
        assert!(r[col("size")].parse::<u64>().is_ok());
        assert_eq!(r[col("verdict")], "target-reached");
        assert!(r[col("median_seconds")].parse::<f64>().unwrap() > 0.0);
        assert!(r[col("states")].parse::<u64>().unwrap() > 0);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_shows_timeouts() {
    // zing-clone at N = 40 takes 2^40 calls without summaries: it must show as `timeout`.
    let out = zingrs()
        .args([
            "bench",
            "zing-clone",
            "--sizes",
            "3,40",
            "--engine",
            "explicit",
            "--repeat",
            "1",
            "--timeout",
            "0.5",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("timeout"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("3 ") && l.contains("passed")),
        "{text}"
    );
}
