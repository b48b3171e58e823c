//! C#-style preprocessor lines (zing-language.md §1.3): `#define`/`#undef`, the `#if` family,
//! and `#region`/`#endregion`/`#line`/`#warning` (ignored); `#error` is reported.
//!
//! The pass blanks directive lines and the lines of false branches with spaces, so byte
//! offsets (and with them every span) stay those of the original text.

use crate::diag::Diagnostic;
use crate::ir::Span;
use std::collections::HashSet;

/// One open `#if`: whether its enclosing region is active, whether some branch was taken,
/// whether the current branch is active, and whether `#else` was seen.
struct Cond {
    parent_active: bool,
    taken: bool,
    active: bool,
    seen_else: bool,
    span: Span,
}

/// Runs the preprocessor. Returns the text unchanged (borrowed) when no line starts with `#`.
pub fn run(text: &str, diags: &mut Vec<Diagnostic>) -> Option<String> {
    if !text.lines().any(|l| l.trim_start().starts_with('#')) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut symbols: HashSet<String> = HashSet::new();
    let mut stack: Vec<Cond> = Vec::new();
    let mut seen_token = false;
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let active = stack.last().is_none_or(|c| c.active);
        let trimmed = line.trim_start();
        let Some(directive) = trimmed.strip_prefix('#') else {
            if active {
                if !trimmed.trim().is_empty() && !trimmed.starts_with("//") {
                    seen_token = true;
                }
                out.push_str(line);
            } else {
                blank(line, &mut out);
            }
            continue;
        };
        let at = start + (line.len() - trimmed.len());
        let span = Span::new(at, (start + line.trim_end().len()).max(at));
        let directive = directive.split("//").next().unwrap_or("").trim();
        let (word, rest) = match directive.find(|c: char| c.is_whitespace()) {
            Some(i) => (&directive[..i], directive[i..].trim()),
            None => (directive, ""),
        };
        match word {
            "define" | "undef" => {
                if !active {
                } else if seen_token {
                    diags.push(
                        Diagnostic::error(span, format!("`#{word}` after the first token"))
                            .with_label("symbols must be defined before any code"),
                    );
                } else if rest.is_empty() {
                    diags.push(Diagnostic::error(span, format!("`#{word}` needs a symbol")));
                } else if word == "define" {
                    symbols.insert(rest.to_string());
                } else {
                    symbols.remove(rest);
                }
            }
            "if" => {
                let value = active && eval(rest, &symbols, span, diags);
                stack.push(Cond {
                    parent_active: active,
                    taken: value,
                    active: value,
                    seen_else: false,
                    span,
                });
            }
            "elif" | "else" => match stack.last_mut() {
                Some(c) if !c.seen_else => {
                    let value = if word == "else" {
                        c.seen_else = true;
                        true
                    } else {
                        c.parent_active && eval(rest, &symbols, span, diags)
                    };
                    c.active = c.parent_active && !c.taken && value;
                    c.taken |= c.active;
                }
                Some(_) => diags.push(Diagnostic::error(span, format!("`#{word}` after `#else`"))),
                None => diags.push(Diagnostic::error(span, format!("`#{word}` without `#if`"))),
            },
            "endif" => {
                if stack.pop().is_none() {
                    diags.push(Diagnostic::error(span, "`#endif` without `#if`"));
                }
            }
            "error" if active => diags.push(
                Diagnostic::error(span, format!("#error: {rest}")).with_label("`#error` directive"),
            ),
            "error" | "warning" | "line" | "region" | "endregion" | "pragma" => {}
            _ => {
                if active {
                    diags.push(
                        Diagnostic::error(
                            span,
                            format!("unknown preprocessor directive `#{word}`"),
                        )
                        .with_label("not a directive"),
                    );
                }
            }
        }
        blank(line, &mut out);
    }
    for c in stack {
        diags.push(Diagnostic::error(c.span, "`#if` without `#endif`").with_label("never closed"));
    }
    Some(out)
}

/// Appends `line` with every character other than line breaks replaced by spaces of the
/// same byte length.
fn blank(line: &str, out: &mut String) {
    for c in line.chars() {
        match c {
            '\n' | '\r' => out.push(c),
            _ => out.extend(std::iter::repeat_n(' ', c.len_utf8())),
        }
    }
}

/// Evaluates a `#if` condition; a malformed one is reported and counts as false.
fn eval(expr: &str, symbols: &HashSet<String>, span: Span, diags: &mut Vec<Diagnostic>) -> bool {
    let toks = cond_tokens(expr);
    let mut p = CondParser {
        toks: &toks,
        pos: 0,
        symbols,
        depth: 0,
    };
    match p.or() {
        Some(v) if p.pos == toks.len() => v,
        _ => {
            diags.push(
                Diagnostic::error(span, "malformed `#if` condition").with_label(
                    "expected symbols, `true`, `false`, `!`, `==`, `!=`, `&&`, `||`, `(` `)`",
                ),
            );
            false
        }
    }
}

/// Splits a condition into words and operators.
fn cond_tokens(expr: &str) -> Vec<String> {
    let mut toks = Vec::new();
    let chars: Vec<char> = expr.chars().collect();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let s = i;
            while chars
                .get(i)
                .is_some_and(|c| c.is_alphanumeric() || *c == '_')
            {
                i += 1;
            }
            toks.push(chars[s..i].iter().collect());
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            if matches!(two.as_str(), "==" | "!=" | "&&" | "||") {
                toks.push(two);
                i += 2;
            } else {
                toks.push(c.to_string());
                i += 1;
            }
        }
    }
    toks
}

/// Recursive descent over a `#if` condition (depth-capped).
struct CondParser<'a> {
    toks: &'a [String],
    pos: usize,
    symbols: &'a HashSet<String>,
    depth: u32,
}

impl CondParser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(String::as_str)
    }
    fn or(&mut self) -> Option<bool> {
        let mut v = self.and()?;
        while self.peek() == Some("||") {
            self.pos += 1;
            v |= self.and()?;
        }
        Some(v)
    }
    fn and(&mut self) -> Option<bool> {
        let mut v = self.eq()?;
        while self.peek() == Some("&&") {
            self.pos += 1;
            v &= self.eq()?;
        }
        Some(v)
    }
    fn eq(&mut self) -> Option<bool> {
        let mut v = self.unary()?;
        while let Some(op) = self.peek().filter(|o| *o == "==" || *o == "!=") {
            let is_eq = op == "==";
            self.pos += 1;
            let r = self.unary()?;
            v = (v == r) == is_eq;
        }
        Some(v)
    }
    fn unary(&mut self) -> Option<bool> {
        self.depth += 1;
        if self.depth > 64 {
            return None;
        }
        let r = match self.peek()? {
            "!" => {
                self.pos += 1;
                self.unary().map(|v| !v)
            }
            "(" => {
                self.pos += 1;
                let v = self.or()?;
                (self.peek() == Some(")")).then(|| {
                    self.pos += 1;
                    v
                })
            }
            "true" => {
                self.pos += 1;
                Some(true)
            }
            "false" => {
                self.pos += 1;
                Some(false)
            }
            w if w.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                let v = self.symbols.contains(w);
                self.pos += 1;
                Some(v)
            }
            _ => None,
        };
        self.depth -= 1;
        r
    }
}
