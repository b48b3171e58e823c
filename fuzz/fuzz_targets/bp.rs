//! The boolean-program front end on arbitrary bytes: it must give a program or diagnostics,
//! never panic, overflow its stack or hang (libFuzzer reports each).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(diags) = zingrs_lang::compile("fuzz.bp", &text, zingrs_lang::Lang::Bp) {
        // rendering the diagnostics (carets under arbitrary text) must not panic either
        let src = zingrs_lang::ir::Source::new("fuzz.bp", text.as_ref());
        let _ = zingrs_lang::diag::render(&src, &diags);
    }
});
