//! `zingrs bench FAMILY --sizes a,b,c --engine E[,E2...]`: how checking time scales with the
//! size of a benchmark family (benchmarks.md).
//!
//! For each size and engine the model is generated to a temporary file and checked R times by
//! `zingrs check --format json --stats --trace none` in a fresh process (the current
//! executable), so every figure is whole-process. The median wall time is reported with the
//! verdict, distinct states, summaries computed/applied and peak memory read from the JSON;
//! then the log-log slope of time against size per engine, and the speed-up of each engine over
//! the first one named. A run that exceeds `--timeout` is killed and shown as `timeout`: rows
//! are never dropped.

use super::check::Engine;
use crate::gen::families::{self, Family};
use crate::report::exit;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Options of `zingrs bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The family (see `zingrs gen`): bebop-t, zing-clone, zing-deep-alloc, zing-alloc, zing-patterns,
    /// bp-parity, bp-parity-flat, bp-parity-flat-rev, bp-call-chain, philosophers, philosophers-ordered, owners, lockers, fib-bp, bluetooth-bp (N adders and N
    /// stoppers).
    pub family: String,
    /// The sizes N, comma-separated.
    #[arg(long, value_name = "N,...", value_delimiter = ',', required = true)]
    pub sizes: Vec<u64>,
    /// The engines, comma-separated; speed-ups are relative to the first.
    #[arg(
        long,
        value_name = "E,...",
        value_delimiter = ',',
        default_value = "auto"
    )]
    pub engine: Vec<Engine>,
    /// Runs per size and engine (the median wall time is reported).
    #[arg(long, value_name = "R", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Seconds after which a run is killed and shown as `timeout`.
    #[arg(long, value_name = "SECS", default_value_t = 60.0, value_parser = bench_seconds)]
    pub timeout: f64,
    /// Print CSV (one row per size and engine) instead of the table.
    #[arg(long)]
    pub csv: bool,
    /// Also write a log-log plot of time against size (SVG), one line per engine.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Check every model with this context-switch bound (`check --contexts K`).
    #[arg(long, value_name = "K")]
    pub contexts: Option<u32>,
}

/// One measured (size, engine) cell.
#[derive(Clone, Debug)]
struct Row {
    size: u64,
    engine: &'static str,
    /// `None` when a run timed out.
    outcome: Option<Outcome>,
}

/// What a finished run reported.
#[derive(Clone, Debug)]
struct Outcome {
    verdict: String,
    exit_code: i32,
    states: Option<u64>,
    computed: Option<u64>,
    applied: Option<u64>,
    median_seconds: f64,
    peak_bytes: Option<u64>,
}

/// Runs the benchmark; returns the exit code.
pub fn run(a: &BenchArgs) -> i32 {
    let Some(family) = families::family(&a.family) else {
        eprintln!(
            "error: unknown family `{}` (known: {})",
            a.family,
            families::family_names()
        );
        return exit::INVALID;
    };
    if a.engine.contains(&Engine::All) {
        eprintln!("error: `--engine all` cannot be benchmarked; name the engines instead");
        return exit::INVALID;
    }
    if a.repeat == 0 || !a.timeout.is_finite() || a.timeout <= 0.0 || a.sizes.is_empty() {
        eprintln!("error: --repeat and --timeout must be positive and --sizes non-empty");
        return exit::INVALID;
    }
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot find the zingrs executable: {e}");
            return exit::INTERNAL;
        }
    };
    let dir = std::env::temp_dir().join(format!("zingrs-bench-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error: cannot create {}: {e}", dir.display());
        return exit::INTERNAL;
    }
    let engines: Vec<&'static str> = a.engine.iter().map(|e| engine_name(*e)).collect();
    let mut rows = Vec::new();
    let mut failure = None;
    for &size in &a.sizes {
        let model = dir.join(format!("{}-{size}.{}", family.name, family.extension()));
        if let Err(e) = std::fs::write(&model, family.generate(size)) {
            failure = Some(format!("cannot write {}: {e}", model.display()));
            break;
        }
        for &engine in &engines {
            match measure(&exe, &dir, &model, family, engine, a) {
                Ok(outcome) => rows.push(Row {
                    size,
                    engine,
                    outcome,
                }),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        if failure.is_some() {
            break;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(e) = failure {
        eprintln!("error: {e}");
        return exit::INTERNAL;
    }
    let printed = super::emit(if a.csv {
        csv(family, &rows)
    } else {
        table(family, &engines, &rows, a)
    });
    if printed != exit::PASSED {
        return printed;
    }
    if let Some(path) = &a.plot {
        if let Err(e) = plot(path, family, &engines, &rows, a.timeout) {
            eprintln!("error: cannot write the plot {}: {e}", path.display());
            return exit::INTERNAL;
        }
    }
    exit::PASSED
}

/// The command-line name of an engine.
fn engine_name(e: Engine) -> &'static str {
    use clap::ValueEnum;
    let name = e
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default();
    // The names are few and fixed: leak them once to get `'static` strings for the rows.
    Box::leak(name.into_boxed_str())
}

/// Parses `--timeout` (a positive number of seconds, as `check`'s).
fn bench_seconds(s: &str) -> Result<f64, String> {
    super::positive_seconds(s).map(|d| d.as_secs_f64())
}

/// Checks `model` `repeat` times with `engine`; `Ok(None)` when a run timed out.
fn measure(
    exe: &Path,
    dir: &Path,
    model: &Path,
    family: &Family,
    engine: &str,
    a: &BenchArgs,
) -> Result<Option<Outcome>, String> {
    let (repeat, timeout) = (a.repeat, a.timeout);
    let out_path = dir.join("out.json");
    let mut times = Vec::new();
    let mut last: Option<serde_json::Value> = None;
    let mut last_code = 0;
    let mut peak = None::<u64>;
    for _ in 0..repeat {
        let out = std::fs::File::create(&out_path)
            .map_err(|e| format!("cannot create {}: {e}", out_path.display()))?;
        let mut cmd = Command::new(exe);
        cmd.arg("check").arg(model).args([
            "--engine", engine, "--format", "json", "--stats", "--trace", "none",
        ]);
        if let Some(t) = family.target {
            cmd.args(["--target", t]);
        }
        if let Some(k) = a.contexts {
            cmd.args(["--contexts", &k.to_string()]);
        }
        cmd.stdin(Stdio::null()).stdout(out).stderr(Stdio::null());
        let start = Instant::now();
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
        let limit = Duration::from_secs_f64(timeout);
        let status = loop {
            if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
                break Some(s);
            }
            let elapsed = start.elapsed();
            if elapsed >= limit {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            // Poll often enough that the measured time is within about 2% of the true one.
            let nap = (elapsed / 50).clamp(Duration::from_micros(50), Duration::from_millis(10));
            std::thread::sleep(nap);
        };
        let Some(status) = status else {
            return Ok(None);
        };
        times.push(start.elapsed().as_secs_f64());
        last_code = status.code().unwrap_or(exit::INTERNAL);
        let text = std::fs::read_to_string(&out_path).unwrap_or_default();
        let json: Option<serde_json::Value> = serde_json::from_str(&text).ok();
        if let Some(p) = json
            .as_ref()
            .and_then(|j| j["stats"]["peak_memory_bytes"].as_u64())
        {
            peak = Some(peak.map_or(p, |q| q.max(p)));
        }
        last = json;
    }
    times.sort_by(f64::total_cmp);
    let median = if times.len() % 2 == 1 {
        times[times.len() / 2]
    } else {
        (times[times.len() / 2 - 1] + times[times.len() / 2]) / 2.0
    };
    let (verdict, states, computed, applied) = match &last {
        Some(j) => {
            let stats = &j["stats"];
            let counter = |name: &str| {
                stats["counters"].as_array().and_then(|cs| {
                    cs.iter()
                        .find(|c| c["name"] == name)
                        .and_then(|c| c["value"].as_u64())
                        // u64::MAX is a saturated count (the bdd engine's summary_edges on
                        // bp-parity), not a measurement: shown as `-`.
                        .filter(|v| *v != u64::MAX)
                })
            };
            let effects: Option<u64> = stats["summaries"].as_array().and_then(|s| {
                if s.is_empty() {
                    None
                } else {
                    Some(s.iter().filter_map(|p| p["effects"].as_u64()).sum())
                }
            });
            let computed = counter("summaries_effects")
                .or(effects)
                .or_else(|| counter("summary_edges"));
            let applied = counter("summary_applications");
            let verdict = j["verdict"]["kind"]
                .as_str()
                .unwrap_or("unknown")
                .to_string();
            (verdict, stats["states"].as_u64(), computed, applied)
        }
        None => (format!("error (exit {last_code})"), None, None, None),
    };
    Ok(Some(Outcome {
        verdict,
        exit_code: last_code,
        states,
        computed,
        applied,
        median_seconds: median,
        peak_bytes: peak,
    }))
}

/// Least-squares slope of ln(time) against ln(size) over the finished sizes; `None` with fewer
/// than two distinct sizes.
fn slope(points: &[(u64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(n, t)| *n > 0 && *t > 0.0)
        .map(|(n, t)| ((*n as f64).ln(), t.ln()))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let k = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// An optional count, or `-`.
fn opt(v: Option<u64>) -> String {
    v.map_or("-".to_string(), |v| v.to_string())
}

/// Bytes as megabytes with one decimal, or `-`.
fn mb(v: Option<u64>) -> String {
    v.map_or("-".to_string(), |b| {
        format!("{:.1}", b as f64 / (1024.0 * 1024.0))
    })
}

/// The finished (size, median seconds) points of one engine.
fn points(rows: &[Row], engine: &str) -> Vec<(u64, f64)> {
    rows.iter()
        .filter(|r| r.engine == engine)
        .filter_map(|r| r.outcome.as_ref().map(|o| (r.size, o.median_seconds)))
        .collect()
}

/// The human-readable report: the table, the slopes, the speed-ups.
fn table(family: &Family, engines: &[&str], rows: &[Row], a: &BenchArgs) -> String {
    use std::fmt::Write;
    let header = [
        "size",
        "engine",
        "verdict",
        "states",
        "summaries",
        "median s",
        "peak MB",
    ];
    let mut cells: Vec<[String; 7]> = Vec::new();
    for r in rows {
        cells.push(match &r.outcome {
            Some(o) => [
                r.size.to_string(),
                r.engine.to_string(),
                o.verdict.clone(),
                opt(o.states),
                match (o.computed, o.applied) {
                    (None, None) => "-".to_string(),
                    (c, ap) => format!("{}/{}", opt(c), opt(ap)),
                },
                format!("{:.4}", o.median_seconds),
                mb(o.peak_bytes),
            ],
            None => [
                r.size.to_string(),
                r.engine.to_string(),
                "timeout".to_string(),
                "-".to_string(),
                "-".to_string(),
                format!(">{}", a.timeout),
                "-".to_string(),
            ],
        });
    }
    let mut width = header.map(str::len);
    for c in &cells {
        for (w, s) in width.iter_mut().zip(c.iter()) {
            *w = (*w).max(s.len());
        }
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "zingrs bench {}: median of {} run{} per cell, timeout {} s{}",
        family.name,
        a.repeat,
        if a.repeat == 1 { "" } else { "s" },
        a.timeout,
        if family.scalable {
            ""
        } else {
            " (this family ignores the size)"
        }
    );
    let line = |s: &mut String, c: &[String]| {
        for (i, (v, w)) in c.iter().zip(width.iter()).enumerate() {
            // Text columns left-aligned, numbers right-aligned.
            if i == 1 || i == 2 {
                let _ = write!(s, "{v:<w$}  ");
            } else {
                let _ = write!(s, "{v:>w$}  ");
            }
        }
        let trimmed = s.trim_end().len();
        s.truncate(trimmed);
        s.push('\n');
    };
    line(&mut s, &header.map(String::from));
    let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
    line(&mut s, &rule);
    for c in &cells {
        line(&mut s, c);
    }
    s.push('\n');
    for e in engines {
        let pts = points(rows, e);
        match slope(&pts) {
            Some(k) => {
                let _ = writeln!(
                    s,
                    "slope {e}: {k:.2} (log-log least squares over {} finished size{})",
                    pts.len(),
                    if pts.len() == 1 { "" } else { "s" }
                );
            }
            None => {
                let _ = writeln!(s, "slope {e}: n/a (fewer than two finished sizes)");
            }
        }
    }
    if engines.len() > 1 {
        let base = engines[0];
        s.push('\n');
        for &size in &a.sizes {
            let get = |e: &str| {
                rows.iter()
                    .find(|r| r.size == size && r.engine == e)
                    .map(|r| r.outcome.as_ref().map(|o| o.median_seconds))
            };
            let Some(b) = get(base) else { continue };
            let parts: Vec<String> = engines[1..]
                .iter()
                .map(|e| {
                    let ratio = match (b, get(e).flatten()) {
                        (Some(b), Some(t)) => format!("{:.2}x", b / t.max(1e-9)),
                        (None, Some(t)) => format!(">{:.2}x", a.timeout / t.max(1e-9)),
                        (Some(_), None) => "timeout".to_string(),
                        (None, None) => "both timeout".to_string(),
                    };
                    format!("{e} {ratio}")
                })
                .collect();
            let _ = writeln!(s, "speed-up over {base} at {size}: {}", parts.join(", "));
        }
    }
    s
}

/// CSV: a header and one row per size and engine (timeouts have `timeout` as verdict and empty
/// measurements).
fn csv(family: &Family, rows: &[Row]) -> String {
    let mut s = String::from(
        "family,size,engine,verdict,exit_code,states,summaries_computed,summaries_applied,median_seconds,peak_mb\n",
    );
    let o2s = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    for r in rows {
        let line = match &r.outcome {
            Some(o) => format!(
                "{},{},{},{},{},{},{},{},{:.6},{}\n",
                family.name,
                r.size,
                r.engine,
                o.verdict.replace(',', ";"),
                o.exit_code,
                o2s(o.states),
                o2s(o.computed),
                o2s(o.applied),
                o.median_seconds,
                o.peak_bytes
                    .map_or(String::new(), |b| format!("{:.1}", b as f64 / 1048576.0)),
            ),
            None => format!("{},{},{},timeout,,,,,,\n", family.name, r.size, r.engine),
        };
        s.push_str(&line);
    }
    s
}

/// Writes a log-log SVG plot of median time against size, one line per engine; timed-out
/// sizes are drawn as crosses at the timeout.
fn plot(
    path: &Path,
    family: &Family,
    engines: &[&str],
    rows: &[Row],
    timeout: f64,
) -> Result<(), String> {
    use plotters::prelude::*;
    let sizes: Vec<u64> = rows.iter().map(|r| r.size.max(1)).collect();
    let times: Vec<f64> = rows
        .iter()
        .map(|r| {
            r.outcome
                .as_ref()
                .map_or(timeout, |o| o.median_seconds.max(1e-6))
        })
        .collect();
    let (xmin, xmax) = (
        *sizes.iter().min().unwrap_or(&1) as f64,
        *sizes.iter().max().unwrap_or(&1) as f64,
    );
    let (ymin, ymax) = times.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), t| {
        (lo.min(*t), hi.max(*t))
    });
    let (ymin, ymax) = if ymin.is_finite() {
        (ymin, ymax)
    } else {
        (1e-3, 1.0)
    };
    let x_range = (xmin / 1.2)..(xmax * 1.2);
    let mut xticks: Vec<f64> = sizes.iter().map(|n| *n as f64).collect();
    xticks.sort_by(f64::total_cmp);
    xticks.dedup();
    let y_range = (ymin / 2.0)..(ymax * 2.0);
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let root = SVGBackend::new(path, (800, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("zingrs bench {}", family.name), ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(
            // The sizes themselves are the x ticks: a narrow log range has no "round" ticks.
            x_range.log_scale().with_key_points(xticks),
            y_range.log_scale(),
        )
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("size N")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc("median wall seconds")
        .draw()
        .map_err(|e| err(&e))?;
    for (i, e) in engines.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let pts: Vec<(f64, f64)> = points(rows, e)
            .into_iter()
            .map(|(n, t)| (n.max(1) as f64, t.max(1e-6)))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(e.to_string())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart
            .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
            .map_err(|e| err(&e))?;
        let timeouts: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.engine == *e && r.outcome.is_none())
            .map(|r| (r.size.max(1) as f64, timeout))
            .collect();
        chart
            .draw_series(
                timeouts
                    .iter()
                    .map(|p| Cross::new(*p, 6, color.stroke_width(2))),
            )
            .map_err(|e| err(&e))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::slope;

    #[test]
    fn slope_of_powers() {
        let lin = [(100, 1.0), (200, 2.0), (400, 4.0)];
        assert!((slope(&lin).unwrap() - 1.0).abs() < 1e-9);
        let quad = [(10, 1.0), (20, 4.0), (40, 16.0)];
        assert!((slope(&quad).unwrap() - 2.0).abs() < 1e-9);
        assert!(slope(&[(10, 1.0)]).is_none());
    }
}
