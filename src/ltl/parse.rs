//! The text of an LTL formula (`check --ltl`): temporal and boolean operators around atomic
//! propositions that are the model's own expressions or control locations.
//!
//! ```text
//! formula := implication ( '<->' implication )*
//! implication := disjunction ( '->' implication )?
//! disjunction := conjunction ( ('||' | '|') conjunction )*
//! conjunction := binary ( ('&&' | '&') binary )*
//! binary := unary ( ('U' | 'R' | 'V' | 'W') binary )?
//! unary := ('!' | 'G' | 'F' | 'X' | '[]' | '<>') unary | primary
//! primary := '(' formula ')' | 'true' | 'false' | '@' label | '@' Proc ':' label
//!          | '{' model expression '}' | comparison
//! ```
//!
//! A comparison is operands (names with `.field` and `[index]`, numbers) joined by arithmetic
//! and relational operators (`+ - * / % == != = < <= > >=`), given to the model's own front
//! end as written; anything else (parentheses, other operators, a global named `G`) goes in
//! braces.

/// A formula as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    True,
    False,
    /// An atomic proposition: the index of its text in [`Parsed::atoms`].
    Atom(usize),
    Not(Box<Written>),
    And(Box<Written>, Box<Written>),
    Or(Box<Written>, Box<Written>),
    Implies(Box<Written>, Box<Written>),
    Iff(Box<Written>, Box<Written>),
    Next(Box<Written>),
    Always(Box<Written>),
    Eventually(Box<Written>),
    Until(Box<Written>, Box<Written>),
    Release(Box<Written>, Box<Written>),
    WeakUntil(Box<Written>, Box<Written>),
}

/// An atomic proposition as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AtomText {
    /// `@label` (`proc` none) or `@Proc:label`: some thread stands at that label.
    At { proc: Option<String>, label: String },
    /// A boolean expression of the model's language, and where it starts in the formula.
    Expr { text: String, column: usize },
}

/// A parsed formula and its distinct atomic propositions.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub formula: Written,
    pub atoms: Vec<AtomText>,
}

/// A mistake in a formula: what, and the column (1-based, in characters) where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub column: usize,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    LParen,
    RParen,
    Not,
    And,
    Or,
    Implies,
    Iff,
    Always,
    Eventually,
    Next,
    Until,
    Release,
    WeakUntil,
    True,
    False,
    At {
        proc: Option<String>,
        label: String,
    },
    Braced(String),
    /// A piece of a comparison: an operand (`Operand`) or an operator (`Op`).
    Operand(String),
    Op(String),
    End,
}

/// Tokens with the byte offset each starts at and ends before.
fn lex(text: &str) -> Result<Vec<(Tok, usize, usize)>, ParseError> {
    let b = text.as_bytes();
    let col = |i: usize| text[..i].chars().count() + 1;
    let err = |i: usize, m: String| ParseError {
        column: col(i),
        message: m,
    };
    let mut out = Vec::new();
    let mut i = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let two = text.get(i..i + 2).unwrap_or("");
        let three = text.get(i..i + 3).unwrap_or("");
        let (tok, len) = if three == "<->" {
            (Tok::Iff, 3)
        } else if two == "&&" {
            (Tok::And, 2)
        } else if two == "||" {
            (Tok::Or, 2)
        } else if two == "->" {
            (Tok::Implies, 2)
        } else if two == "[]" {
            (Tok::Always, 2)
        } else if two == "<>" {
            (Tok::Eventually, 2)
        } else if ["==", "!=", "<=", ">="].contains(&two) {
            (Tok::Op(two.into()), 2)
        } else {
            match c {
                b'(' => (Tok::LParen, 1),
                b')' => (Tok::RParen, 1),
                b'!' => (Tok::Not, 1),
                b'&' => (Tok::And, 1),
                b'|' => (Tok::Or, 1),
                b'<' | b'>' | b'=' | b'+' | b'-' | b'*' | b'/' | b'%' => {
                    (Tok::Op((c as char).to_string()), 1)
                }
                b'{' => {
                    let mut depth = 0usize;
                    let mut j = i;
                    loop {
                        match b.get(j) {
                            None => return Err(err(i, "this `{` is never closed".into())),
                            Some(b'{') => depth += 1,
                            Some(b'}') => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    let inner = text[i + 1..j].trim();
                    if inner.is_empty() {
                        return Err(err(
                            i,
                            "an empty `{}`: braces hold a model expression".into(),
                        ));
                    }
                    (Tok::Braced(text[i + 1..j].to_string()), j + 1 - i)
                }
                b'@' => {
                    let mut j = i + 1;
                    while j < b.len() && word(b[j]) {
                        j += 1;
                    }
                    let first = &text[i + 1..j];
                    if first.is_empty() {
                        return Err(err(i, "`@` names a label: `@L` or `@Proc:L`".into()));
                    }
                    if b.get(j) == Some(&b':') {
                        let mut k = j + 1;
                        while k < b.len() && word(b[k]) {
                            k += 1;
                        }
                        let label = &text[j + 1..k];
                        if label.is_empty() {
                            return Err(err(j, "a label after `:`: `@Proc:L`".into()));
                        }
                        (
                            Tok::At {
                                proc: Some(first.into()),
                                label: label.into(),
                            },
                            k - i,
                        )
                    } else {
                        (
                            Tok::At {
                                proc: None,
                                label: first.into(),
                            },
                            j - i,
                        )
                    }
                }
                c if word(c) => {
                    let mut j = i;
                    // a name with fields and indexes (`Class.field`, `a[i]`), or a number
                    loop {
                        while j < b.len() && word(b[j]) {
                            j += 1;
                        }
                        if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(|&c| word(c)) {
                            j += 1;
                            continue;
                        }
                        if b.get(j) == Some(&b'[') {
                            let mut depth = 0usize;
                            while j < b.len() {
                                match b[j] {
                                    b'[' => depth += 1,
                                    b']' => {
                                        depth -= 1;
                                        if depth == 0 {
                                            break;
                                        }
                                    }
                                    _ => {}
                                }
                                j += 1;
                            }
                            if j == b.len() {
                                return Err(err(i, "this `[` is never closed".into()));
                            }
                            j += 1;
                            continue;
                        }
                        break;
                    }
                    let w = &text[i..j];
                    let tok = match w {
                        "G" => Tok::Always,
                        "F" => Tok::Eventually,
                        "X" => Tok::Next,
                        "U" => Tok::Until,
                        "R" | "V" => Tok::Release,
                        "W" => Tok::WeakUntil,
                        "true" => Tok::True,
                        "false" => Tok::False,
                        _ => Tok::Operand(w.into()),
                    };
                    (tok, j - i)
                }
                _ => {
                    let ch = text[i..].chars().next().unwrap_or('?');
                    return Err(err(
                        i,
                        format!("`{ch}` is not part of an LTL formula (a model expression with it goes in braces: {{...}})"),
                    ));
                }
            }
        };
        out.push((tok, start, start + len));
        i += len;
    }
    out.push((Tok::End, b.len(), b.len()));
    Ok(out)
}

struct Parser<'t> {
    text: &'t str,
    toks: Vec<(Tok, usize, usize)>,
    at: usize,
    atoms: Vec<AtomText>,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.at].0
    }

    fn column(&self, byte: usize) -> usize {
        self.text[..byte].chars().count() + 1
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError {
            column: self.column(self.toks[self.at].1),
            message: message.into(),
        }
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.at].0.clone();
        if t != Tok::End {
            self.at += 1;
        }
        t
    }

    fn atom(&mut self, a: AtomText) -> Written {
        let i = match self.atoms.iter().position(|x| same_atom(x, &a)) {
            Some(i) => i,
            None => {
                self.atoms.push(a);
                self.atoms.len() - 1
            }
        };
        Written::Atom(i)
    }

    fn formula(&mut self) -> Result<Written, ParseError> {
        let mut f = self.implication()?;
        while *self.peek() == Tok::Iff {
            self.bump();
            let g = self.implication()?;
            f = Written::Iff(Box::new(f), Box::new(g));
        }
        Ok(f)
    }

    fn implication(&mut self) -> Result<Written, ParseError> {
        let f = self.disjunction()?;
        if *self.peek() == Tok::Implies {
            self.bump();
            let g = self.implication()?;
            return Ok(Written::Implies(Box::new(f), Box::new(g)));
        }
        Ok(f)
    }

    fn disjunction(&mut self) -> Result<Written, ParseError> {
        let mut f = self.conjunction()?;
        while *self.peek() == Tok::Or {
            self.bump();
            let g = self.conjunction()?;
            f = Written::Or(Box::new(f), Box::new(g));
        }
        Ok(f)
    }

    fn conjunction(&mut self) -> Result<Written, ParseError> {
        let mut f = self.binary()?;
        while *self.peek() == Tok::And {
            self.bump();
            let g = self.binary()?;
            f = Written::And(Box::new(f), Box::new(g));
        }
        Ok(f)
    }

    fn binary(&mut self) -> Result<Written, ParseError> {
        let f = self.unary()?;
        let op = match self.peek() {
            Tok::Until => Written::Until,
            Tok::Release => Written::Release,
            Tok::WeakUntil => Written::WeakUntil,
            _ => return Ok(f),
        };
        self.bump();
        let g = self.binary()?;
        Ok(op(Box::new(f), Box::new(g)))
    }

    fn unary(&mut self) -> Result<Written, ParseError> {
        let op = match self.peek() {
            Tok::Not => Written::Not,
            Tok::Always => Written::Always,
            Tok::Eventually => Written::Eventually,
            Tok::Next => Written::Next,
            _ => return self.primary(),
        };
        self.bump();
        Ok(op(Box::new(self.unary()?)))
    }

    fn primary(&mut self) -> Result<Written, ParseError> {
        let (tok, start, _) = self.toks[self.at].clone();
        match tok {
            Tok::LParen => {
                self.bump();
                let f = self.formula()?;
                if *self.peek() != Tok::RParen {
                    return Err(self.error("expected `)`"));
                }
                self.bump();
                Ok(f)
            }
            Tok::True => {
                self.bump();
                Ok(Written::True)
            }
            Tok::False => {
                self.bump();
                Ok(Written::False)
            }
            Tok::At { proc, label } => {
                self.bump();
                Ok(self.atom(AtomText::At { proc, label }))
            }
            Tok::Braced(text) => {
                self.bump();
                let column = self.column(start + 1);
                Ok(self.atom(AtomText::Expr {
                    text: text.trim().to_string(),
                    column,
                }))
            }
            Tok::Operand(_) | Tok::Op(_) => {
                // operands and operators, as long as they alternate (a leading `-` is a sign)
                let mut end = start;
                let mut want_operand = true;
                loop {
                    match (self.peek().clone(), want_operand) {
                        (Tok::Operand(_), true) => want_operand = false,
                        (Tok::Op(o), true) if o == "-" => {}
                        (Tok::Op(_), false) => want_operand = true,
                        _ => break,
                    }
                    end = self.toks[self.at].2;
                    self.bump();
                }
                if want_operand {
                    return Err(self.error("expected an operand to finish the comparison"));
                }
                let column = self.column(start);
                Ok(self.atom(AtomText::Expr {
                    text: self.text[start..end].to_string(),
                    column,
                }))
            }
            Tok::End => Err(self.error("the formula ends where a proposition is expected")),
            _ => Err(self.error("expected a proposition, `(`, `!`, `G`, `F` or `X` here")),
        }
    }
}

/// Two atoms are one if they are the same text (expressions) or the same location.
fn same_atom(a: &AtomText, b: &AtomText) -> bool {
    match (a, b) {
        (AtomText::Expr { text: x, .. }, AtomText::Expr { text: y, .. }) => {
            x.split_whitespace().eq(y.split_whitespace())
        }
        _ => a == b,
    }
}

/// Parses a formula.
pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    let toks = lex(text)?;
    let mut p = Parser {
        text,
        toks,
        at: 0,
        atoms: Vec::new(),
    };
    let formula = p.formula()?;
    if *p.peek() != Tok::End {
        return Err(p.error("unexpected text after the formula"));
    }
    Ok(Parsed {
        formula,
        atoms: p.atoms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atoms(s: &str) -> Vec<AtomText> {
        parse(s).unwrap().atoms
    }

    #[test]
    fn operators_bind_as_documented() {
        let p = parse("G (a -> F b) && !c U d").unwrap();
        let a = || Box::new(Written::Atom(0));
        let b = || Box::new(Written::Atom(1));
        let expected = Written::And(
            Box::new(Written::Always(Box::new(Written::Implies(
                a(),
                Box::new(Written::Eventually(b())),
            )))),
            Box::new(Written::Until(
                Box::new(Written::Not(Box::new(Written::Atom(2)))),
                Box::new(Written::Atom(3)),
            )),
        );
        assert_eq!(p.formula, expected);
        assert_eq!(p.atoms.len(), 4);
        assert_eq!(
            parse("[]<> p").unwrap().formula,
            parse("G F p").unwrap().formula
        );
    }

    #[test]
    fn comparisons_and_braces_are_model_expressions() {
        assert_eq!(
            atoms("G (C.count < 3 && x[i+1] == -2)"),
            vec![
                AtomText::Expr {
                    text: "C.count < 3".into(),
                    column: 4
                },
                AtomText::Expr {
                    text: "x[i+1] == -2".into(),
                    column: 19
                }
            ]
        );
        assert_eq!(
            atoms("F {(a + 1) * 2 > b}"),
            vec![AtomText::Expr {
                text: "(a + 1) * 2 > b".into(),
                column: 4
            }]
        );
        assert_eq!(
            atoms("G F @L && F @Phil:eat"),
            vec![
                AtomText::At {
                    proc: None,
                    label: "L".into()
                },
                AtomText::At {
                    proc: Some("Phil".into()),
                    label: "eat".into()
                }
            ]
        );
        // the same proposition twice is one atom
        assert_eq!(atoms("p U (q && p)").len(), 2);
    }

    #[test]
    fn mistakes_have_a_column() {
        let e = parse("G (p -> ").unwrap_err();
        assert_eq!(e.column, 9);
        assert!(e.message.contains("ends"), "{}", e.message);
        assert_eq!(parse("G p)").unwrap_err().column, 4);
        assert_eq!(parse("F x ==").unwrap_err().column, 7);
        assert!(parse("G {p").unwrap_err().message.contains("never closed"));
        assert!(parse("G p # q").unwrap_err().message.contains("`#`"));
    }
}
