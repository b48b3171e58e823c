//! What a runtime error's verdict says about the failing operation: the index and the
//! array's length, the operation that overflowed (even inside a larger expression) with its
//! operands, in the text, Bebop and JSON formats. The expected details are worked out by hand
//! in each model's `why:` header.

mod common {
    pub mod run;
    pub mod schema;
}

use common::run::zingrs;

const REG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/regressions/zing/");

fn model(name: &str) -> String {
    format!("{REG}{name}")
}

/// The verdict line (`FILE:LINE:COL: ...`) of the text format.
fn verdict_line(model: &str) -> String {
    let o = zingrs(&["check", model, "--trace", "none"]);
    assert_eq!(o.status.code(), Some(4), "{o:?}");
    let s = String::from_utf8_lossy(&o.stdout).into_owned();
    s.lines()
        .find(|l| l.starts_with(&format!("{model}:")))
        .unwrap_or_else(|| panic!("no verdict line in {s}"))
        .to_string()
}

fn json_detail(model: &str) -> serde_json::Value {
    let o = zingrs(&["check", model, "--format", "json"]);
    assert_eq!(o.status.code(), Some(4), "{o:?}");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    j["verdict"]["detail"].clone()
}

#[test]
fn an_index_error_names_the_index_expression_its_value_and_the_length() {
    let m = model("runtime_detail_index_expression_write.zing");
    let line = verdict_line(&m);
    assert!(line.starts_with(&format!("{m}:11:9: index out of range in `a[i + 2] = 7;`")));
    assert!(
        line.ends_with(": index `i + 2` is 4 and `a` has 4 elements (in Main.main)"),
        "{line}"
    );
    let d = json_detail(&m);
    assert_eq!(d["operation"], "index", "{d}");
    assert_eq!(d["array"], "a");
    assert_eq!(d["index"], "i + 2");
    assert_eq!(d["value"], 4);
    assert_eq!(d["length"], 4);

    // the second of two element reads fails: its index, not the first one's
    let m = model("runtime_detail_index_expression_read.zing");
    let line = verdict_line(&m);
    assert!(
        line.ends_with(": index `k` is 3 and `b` has 3 elements (in Main.main)"),
        "{line}"
    );
    let d = json_detail(&m);
    assert_eq!(
        (d["index"].as_str(), d["value"].as_i64()),
        (Some("k"), Some(3))
    );
    assert_eq!(d["length"], 3);
}

#[test]
fn an_overflow_names_the_operation_that_overflowed_and_its_operands() {
    // x = (a + b) * c: the multiplication overflows, its left operand is a + b's value
    let m = model("runtime_detail_overflow_outer_operation.zing");
    let line = verdict_line(&m);
    assert!(
        line.starts_with(&format!(
            "{m}:10:9: arithmetic overflow in `x = (a + b) * c;`"
        )),
        "{line}"
    );
    assert!(
        line.ends_with(
            ": `(a + b) * c` overflows: 65536 * 65536 = 4294967296, \
             outside -2147483648..2147483647 (in Main.main)"
        ),
        "{line}"
    );
    let d = json_detail(&m);
    assert_eq!(d["operation"], "overflow", "{d}");
    assert_eq!(d["expression"], "(a + b) * c");
    assert_eq!(d["operator"], "*");
    assert_eq!(d["operands"], serde_json::json!([65536, 65536]));
    assert_eq!(d["result"], 4294967296i64);
    assert_eq!(d["min"], -2147483648i64);
    assert_eq!(d["max"], 2147483647);

    // the same statement, but the inner addition overflows first
    let m = model("runtime_detail_overflow_inner_operation.zing");
    let line = verdict_line(&m);
    assert!(
        line.ends_with(
            ": `a + b` overflows: 2147483647 + 1 = 2147483648, \
             outside -2147483648..2147483647 (in Main.main)"
        ),
        "{line}"
    );
    let d = json_detail(&m);
    assert_eq!(d["expression"], "a + b", "{d}");
    assert_eq!(d["operator"], "+");
    assert_eq!(d["operands"], serde_json::json!([2147483647, 1]));
}

#[test]
fn a_division_by_zero_and_a_bad_array_length_say_their_values() {
    let m = model("runtime_detail_divide_by_zero_subexpression.zing");
    let line = verdict_line(&m);
    assert!(
        line.ends_with(": `7 / (d - 2)` divides 7 by 0 (in Main.main)"),
        "{line}"
    );
    let d = json_detail(&m);
    assert_eq!(d["operation"], "divide-by-zero", "{d}");
    assert_eq!(d["expression"], "7 / (d - 2)");
    assert_eq!(d["operands"], serde_json::json!([7, 0]));

    let m = model("runtime_detail_negative_array_length.zing");
    let line = verdict_line(&m);
    assert!(
        line.ends_with(": the array length `n - 5` is -2, outside 0..2147483647 (in Main.main)"),
        "{line}"
    );
    let d = json_detail(&m);
    assert_eq!(d["operation"], "length", "{d}");
    assert_eq!(d["expression"], "n - 5");
    assert_eq!(d["value"], -2);
    assert_eq!(d["max"], 2147483647);
}

/// The verdict line of a null dereference (exit 4).
fn null_line(name: &str) -> String {
    verdict_line(&model(name))
}

#[test]
fn a_null_dereference_names_the_null_reference_and_what_was_wanted_of_it() {
    // v = c.x with the local c never allocated
    let line = null_line("null_deref_field_read.zing");
    assert!(
        line.ends_with(": `c` is null (reading its field `x`) (in Main.main)"),
        "{line}"
    );
    // g.x = 1 with the static g never allocated: written, and named as the model names globals
    let line = null_line("null_deref_field_write.zing");
    assert!(
        line.ends_with(": `Main.g` is null (writing its field `x`) (in Main.main)"),
        "{line}"
    );
    let line = null_line("array_null_element_write.zing");
    assert!(
        line.ends_with(": `Main.a` is null (indexing it) (in Main.main)"),
        "{line}"
    );
    let line = null_line("set_update_on_null_set.zing");
    assert!(
        line.ends_with(": `Main.s` is null (updating it as a set) (in Main.main)"),
        "{line}"
    );
    let line = null_line("set_membership_on_null_set.zing");
    assert!(
        line.ends_with(": `s` is null (testing membership in it) (in Main.main)"),
        "{line}"
    );
    let line = null_line("chan_send_on_null_channel.zing");
    assert!(
        line.ends_with(": `Main.c` is null (sending on it) (in Main.main)"),
        "{line}"
    );
    // a receive's guard tests the channel's size, but what the model asked is a receive
    let line = null_line("chan_receive_on_null_channel.zing");
    assert!(
        line.ends_with(": `Main.c` is null (receiving from it) (in Main.main)"),
        "{line}"
    );
    // s.Grow(1) through an interface: the dispatch needs the object's class
    let line = null_line("interface_null_receiver_at_call.zing");
    assert!(
        line.ends_with(": `Main.s` is null (calling a method on it) (in Main.Run)"),
        "{line}"
    );
    // inside the method called on null: `this` is the null reference
    let line = null_line("null_receiver_call_touches_field.zing");
    assert!(
        line.ends_with(": `this` is null (reading its field `x`) (in Cell.Get)"),
        "{line}"
    );

    let d = json_detail(&model("null_deref_field_write.zing"));
    assert_eq!(d["operation"], "null-reference", "{d}");
    assert_eq!(d["reference"], "Main.g");
    assert_eq!(d["access"], "write-field");
    assert_eq!(d["field"], "x");
    let d = json_detail(&model("array_null_element_write.zing"));
    assert_eq!(d["access"], "element", "{d}");
    assert!(d.get("field").is_none(), "{d}");
}

/// A field of a field, read in a larger expression: the reference that is null is the
/// inner access, and the field is named from the class of its static type.
#[test]
fn the_null_reference_inside_a_path_is_the_one_named() {
    let m = model("runtime_detail_null_inner_path.zing");
    let line = verdict_line(&m);
    assert!(
        line.ends_with(": `n.next` is null (reading its field `val`) (in Main.main)"),
        "{line}"
    );
}

#[test]
fn bebop_output_says_the_detail_under_the_verdict() {
    let m = model("runtime_detail_overflow_outer_operation.zing");
    let o = zingrs(&["check", &m, "--format", "bebop"]);
    assert_eq!(o.status.code(), Some(4));
    let s = String::from_utf8_lossy(&o.stdout);
    let mut lines = s.lines();
    assert_eq!(
        lines.next(),
        Some("Check failed: arithmetic overflow in Main.main at line 10"),
        "{s}"
    );
    assert_eq!(
        lines.next(),
        Some(
            "`(a + b) * c` overflows: 65536 * 65536 = 4294967296, outside -2147483648..2147483647"
        ),
        "{s}"
    );
}

#[test]
fn a_saved_report_with_details_replays() {
    let m = model("runtime_detail_index_expression_write.zing");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("zingrs-rtdetail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let report = dir.join("r.json");
    let r = report.to_str().expect("utf-8 path");
    let o = zingrs(&["check", &m, "-o", r, "--trace", "none"]);
    assert_eq!(o.status.code(), Some(4));
    common::schema::check_text(&std::fs::read(&report).expect("report"));
    let o = zingrs(&["replay", &m, r]);
    assert_eq!(o.status.code(), Some(4), "{o:?}");
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(
        s.contains("index `i + 2` is 4 and `a` has 4 elements"),
        "{s}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
