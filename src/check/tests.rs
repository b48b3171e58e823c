//! The library's entry point: answers, typed refusals, the parse helpers.

use super::*;
use crate::report::Verdict;
use zingrs_lang::Lang;

/// Two threads, each waiting for nothing: an assertion in the first fails when the second
/// has run.
const CONCURRENT_BP: &str = "\
decl g;
void main() begin
  g := F;
  start_thread goto t;
  assert(!g);
  t: g := T; end_thread;
end
";

const SEQUENTIAL_BP: &str = "\
void main() begin
  decl x;
  x := *;
  if (x) then assert(F); fi
end
";

const ZING: &str = "\
class Main {
    static int g;
    activate static void main() {
        g = 1;
        assert(g == 1);
    }
};
";

fn bp(text: &str) -> Program {
    parse_str("t.bp", text, Lang::Bp).expect("compiles").program
}

#[test]
fn check_gives_the_verdict_and_a_replayed_counterexample() {
    let p = bp(SEQUENTIAL_BP);
    let r = check(&p, &CheckOptions::default()).expect("the default engine applies");
    assert_eq!(r.exit_code, exit::ASSERTION);
    assert!(
        matches!(r.verdict, Verdict::AssertionFailed { .. }),
        "{:?}",
        r.verdict
    );
    assert_eq!(r.model, "t.bp");
    let trace = r.trace.as_ref().expect("a trace");
    assert!(trace.len() >= 2, "{}", trace.len());
    assert!(r.path.is_some());
    // the concurrent one, by every engine that applies
    let p = bp(CONCURRENT_BP);
    let all = CheckOptions {
        engine: Engine::All,
        ..CheckOptions::default()
    };
    let r = check(&p, &all).expect("some engine applies");
    assert_eq!(r.exit_code, exit::ASSERTION);
    assert!(r.engines.len() >= 2, "{:?}", r.engines);
    // a Zing model that passes
    let z = parse_str("t.zing", ZING, Lang::Zing)
        .expect("compiles")
        .program;
    let r = check(&z, &CheckOptions::default()).expect("applies");
    assert_eq!(r.exit_code, exit::PASSED);
    assert!(r.trace.is_none());
}

#[test]
fn an_engine_that_does_not_apply_is_an_error_not_an_empty_result() {
    let p = bp(CONCURRENT_BP);
    let m = Machine::new(&p, Semantics::default());
    // the summary engine's own search, on threads
    let e = crate::summary::search(&m, &Options::default()).expect_err("threads");
    assert_eq!(e.engine, "summary");
    assert!(e.reason.contains("sequential"), "{}", e.reason);
    // the bdd engine's sequential search, on threads and on Zing
    let sym = crate::symbolic::SymbolicOptions {
        live_variables: true,
        mod_ref: true,
        tuples: false,
        measure: false,
    };
    assert!(crate::symbolic::search(&m, &Options::default(), &sym).is_err());
    let z = parse_str("t.zing", ZING, Lang::Zing)
        .expect("compiles")
        .program;
    let mz = Machine::new(&z, Semantics::default());
    assert!(crate::symbolic::search(&mz, &Options::default(), &sym).is_err());
    // through the entry point: a typed error naming the engine
    for (program, engine) in [
        (&p, Engine::Bdd),
        (&z, Engine::Bdd),
        (&z, Engine::Coverability),
    ] {
        let o = CheckOptions {
            engine,
            ..CheckOptions::default()
        };
        match check(program, &o) {
            Err(CheckError::NotApplicable { engine: e, reason }) => {
                assert_eq!(e, engine);
                assert!(!reason.is_empty());
            }
            other => panic!("{engine:?}: {:?}", other.map(|r| r.exit_code)),
        }
    }
    // and a sequential program still runs on the summary engine's own search
    let s = bp(SEQUENTIAL_BP);
    let ms = Machine::new(&s, Semantics::default());
    let r = crate::summary::search(&ms, &Options::default()).expect("sequential");
    assert_eq!(r.findings.len(), 1);
}

#[test]
fn bad_options_are_typed_errors() {
    let p = bp(SEQUENTIAL_BP);
    let o = CheckOptions {
        targets: vec!["NOWHERE".into()],
        ..CheckOptions::default()
    };
    assert_eq!(
        check(&p, &o).map(|r| r.exit_code),
        Err(CheckError::UnknownTarget {
            label: "NOWHERE".into(),
            model: "t.bp".into()
        })
    );
    let o = CheckOptions {
        contexts_from: Some(3),
        contexts: Some(2),
        ..CheckOptions::default()
    };
    let e = check(&p, &o).map(|r| r.exit_code).expect_err("3 > 2");
    assert!(matches!(e, CheckError::Options(_)), "{e:?}");
    assert_eq!(e.exit_code(), exit::INVALID);
    assert_eq!(e.to_string(), "--contexts-from must not exceed --contexts");
}

#[test]
fn parsing_gives_the_command_lines_diagnostics() {
    // a Zing model under a .bp name: one error that names the other language
    let e = parse_bytes("m.bp", ZING.as_bytes().to_vec(), None).expect_err("not a bp");
    match &e {
        ParseError::Invalid { diagnostics, .. } => {
            assert_eq!(diagnostics.len(), 1);
            assert!(diagnostics[0].message.contains("--lang zing"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(e.render().contains("m.bp is not a valid model (1 error)"));
    // a byte-order mark is dropped; a Latin-1 byte in a comment is a note
    let mut bytes = b"\xEF\xBB\xBF// caf\xE9\n".to_vec();
    bytes.extend_from_slice(SEQUENTIAL_BP.as_bytes());
    let p = parse_bytes("m.bp", bytes, None).expect("compiles");
    assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
    assert!(p.notes[0].contains("Latin-1"));
    // and it is kept when the model has errors
    let e = parse_bytes("m.bp", b"// caf\xE9\nvoid main(".to_vec(), None).expect_err("errors");
    match &e {
        ParseError::Invalid { notes, .. } => assert_eq!(notes.len(), 1, "{notes:?}"),
        other => panic!("{other:?}"),
    }
    let e = parse_bytes("m.txt", Vec::new(), None).expect_err("no language");
    assert!(matches!(e, ParseError::UnknownLanguage { .. }));
    let e = parse_file(std::path::Path::new("/nonexistent/m.bp"), None).expect_err("no file");
    assert!(
        e.to_string().starts_with("cannot read /nonexistent/m.bp"),
        "{e}"
    );
}
