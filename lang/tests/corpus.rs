//! The inputs kept from fuzzing (`scripts/fuzz.sh --keep` merges those that reached new
//! coverage into `tests/corpus/{bp,zing}/`) run through the front ends on every `cargo test`:
//! each gives a well-formed program or diagnostics that render, never a panic.

use std::path::Path;
use zingrs_lang::ir::Program;
use zingrs_lang::{compile, Lang};

/// Every successor is a node of the same procedure; every procedure has an entry node.
fn assert_well_formed(p: &Program, name: &str) {
    for pr in &p.procs {
        assert!(!pr.nodes.is_empty(), "{name}: a procedure without nodes");
        assert!(pr.params as usize <= pr.locals.len(), "{name}");
        for n in &pr.nodes {
            for &s in &n.succ {
                assert!((s as usize) < pr.nodes.len(), "{name}: dangling successor");
            }
        }
    }
    for &a in &p.activations {
        assert!((a as usize) < p.procs.len(), "{name}: dangling activation");
    }
}

/// Compiles every kept input of `lang`; returns how many there are.
fn run(dir: &str, lang: Lang) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(dir);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("the kept corpus") {
        let path = entry.expect("a directory entry").path();
        let bytes = std::fs::read(&path).expect("a readable input");
        let name = path.display().to_string();
        let text = String::from_utf8_lossy(&bytes);
        match compile(&name, &text, lang) {
            Ok(c) => assert_well_formed(&c.program, &name),
            Err(diags) => {
                let src = zingrs_lang::ir::Source::new(name.clone(), text.as_ref());
                assert!(
                    !zingrs_lang::diag::render(&src, &diags).is_empty(),
                    "{name}"
                );
            }
        }
        n += 1;
    }
    n
}

#[test]
fn kept_boolean_program_inputs_never_panic() {
    assert!(run("bp", Lang::Bp) > 0, "the kept corpus is empty");
}

#[test]
fn kept_zing_inputs_never_panic() {
    assert!(run("zing", Lang::Zing) > 0, "the kept corpus is empty");
}
