//! `zingrs cfg MODEL`: the IR's control-flow graphs, as text or Graphviz dot.

use petgraph::dot::{Config, Dot};
use petgraph::graph::{DiGraph, NodeIndex};
use std::fmt::Write;
use std::path::PathBuf;
use zingrs_lang::ir::{Program, Stmt};

/// Options of `zingrs cfg`.
#[derive(clap::Args, Debug)]
pub struct CfgArgs {
    /// The model: a .bp or .zing file, or - for standard input.
    pub model: PathBuf,
    #[arg(long, value_enum)]
    pub lang: Option<super::LangArg>,
    /// Only this procedure.
    #[arg(long = "proc", value_name = "NAME")]
    pub proc_name: Option<String>,
    /// Graphviz dot instead of text.
    #[arg(long)]
    pub dot: bool,
}

fn edge_label(stmt: &Stmt, i: usize) -> &'static str {
    match (stmt, i) {
        (Stmt::Branch { .. }, 0) => "T",
        (Stmt::Branch { .. }, _) => "F",
        (Stmt::StartThreadGoto, 1) => "thread",
        _ => "",
    }
}

/// The text listing: one line per node with its labels, statement, successors and line.
pub fn text(p: &Program, procs: &[u32]) -> String {
    let mut out = String::new();
    for &pi in procs {
        let proc = &p.procs[pi as usize];
        let names = |r: std::ops::Range<usize>| {
            proc.locals[r]
                .iter()
                .map(|v| v.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            out,
            "proc {}({}) returns {} [locals: {}]",
            proc.name,
            names(0..proc.params as usize),
            proc.returns.len(),
            names(proc.params as usize..proc.locals.len())
        );
        for (pc, n) in proc.nodes.iter().enumerate() {
            let labels: String = n.labels.iter().map(|l| format!("{l}: ")).collect();
            let succ: Vec<String> = n
                .succ
                .iter()
                .enumerate()
                .map(|(i, s)| match edge_label(&n.stmt, i) {
                    "" => s.to_string(),
                    l => format!("{l}:{s}"),
                })
                .collect();
            let _ = writeln!(
                out,
                "  {pc:>4}  {labels}{}  -> [{}]  (line {})",
                p.describe(pi, pc as u32),
                succ.join(", "),
                p.line_of(pi, pc as u32)
            );
        }
    }
    out
}

/// One dot graph holding every selected procedure's nodes and edges.
pub fn dot(p: &Program, procs: &[u32]) -> String {
    let mut g: DiGraph<String, &'static str> = DiGraph::new();
    for &pi in procs {
        let proc = &p.procs[pi as usize];
        let ids: Vec<NodeIndex> = (0..proc.nodes.len())
            .map(|pc| {
                let n = &proc.nodes[pc];
                let labels: String = n.labels.iter().map(|l| format!("{l}: ")).collect();
                // the statement as written in the source, where it has text of its own
                let statement = match p.source.snippet(n.span) {
                    "" => p.describe(pi, pc as u32),
                    s => s.to_string(),
                };
                g.add_node(format!(
                    "{} line {}: {labels}{statement}",
                    proc.name,
                    p.line_of(pi, pc as u32)
                ))
            })
            .collect();
        for (pc, n) in proc.nodes.iter().enumerate() {
            for (i, &s) in n.succ.iter().enumerate() {
                g.add_edge(ids[pc], ids[s as usize], edge_label(&n.stmt, i));
            }
        }
    }
    let dot = Dot::with_attr_getters(
        &g,
        &[Config::EdgeNoLabel],
        &|_, e| match *e.weight() {
            "" => String::new(),
            l => format!("label = \"{l}\""),
        },
        &|_, _| "shape = box".to_string(),
    );
    // Display, not Debug: petgraph escapes the labels itself, Debug would add a second layer
    // of quotes
    format!("{dot}")
}

/// Prints the graphs; returns the exit code.
pub fn run(a: &CfgArgs) -> i32 {
    let p = match super::load(&a.model, a.lang, false) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let procs: Vec<u32> = match &a.proc_name {
        Some(n) => match p.proc_by_name(n) {
            Some(i) => vec![i],
            None => {
                eprintln!("error: no procedure named {n}");
                return crate::report::exit::INVALID;
            }
        },
        None => (0..p.procs.len() as u32).collect(),
    };
    if a.dot {
        super::emit(format!("{}\n", dot(&p, &procs)))
    } else {
        super::emit(text(&p, &procs))
    }
}
