//! A path's choices as reports write them: a run of at least [`MIN_REPEATS`] back-to-back
//! repetitions of the same choices (a loop's iterations, one to [`MAX_PERIOD`] choices each,
//! [`MIN_FOLDED`] choices or more in all) is one item `{"repeat": N, "choices": [...]}`, so that a counterexample that loops a
//! million times is a few lines of JSON, as its trace is; reading a path expands the runs, so
//! `zingrs replay` re-executes every step. Plain choices are `{"thread": T, "outcome": O}`.

use super::Choice;
use serde::{Deserialize, Serialize};

/// The longest repeated sequence of choices that is folded.
pub const MAX_PERIOD: usize = 32;
/// Folding starts at this many back-to-back repetitions, of at least [`MIN_FOLDED`] choices
/// in all (a short path stays as it is).
pub const MIN_REPEATS: usize = 4;
/// The fewest choices a folded run stands for.
pub const MIN_FOLDED: usize = 16;
/// The most choices a path read from a report may expand to (a forged `repeat` must not
/// exhaust memory).
pub const MAX_CHOICES: u64 = 1 << 32;

/// One item of a path's choices as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Run<'a> {
    One(Choice),
    /// `body`, `times` times over.
    Repeat {
        times: usize,
        body: &'a [Choice],
    },
}

/// The JSON form of [`Run::Repeat`].
#[derive(Serialize)]
pub struct Repeat<'a> {
    pub repeat: usize,
    pub choices: &'a [Choice],
}

/// The items `cs` is written as, in order, found as they are given (each position tries the
/// shortest period first).
pub fn runs(cs: &[Choice]) -> Runs<'_> {
    Runs { cs, i: 0 }
}

/// The iterator of [`runs`].
pub struct Runs<'a> {
    cs: &'a [Choice],
    i: usize,
}

impl<'a> Iterator for Runs<'a> {
    type Item = Run<'a>;

    fn next(&mut self) -> Option<Run<'a>> {
        let (cs, i) = (self.cs, self.i);
        let n = cs.len();
        if i >= n {
            return None;
        }
        for p in 1..=MAX_PERIOD {
            if i + MIN_REPEATS * p > n {
                break;
            }
            // the first MIN_REPEATS repetitions, compared with the choice a period earlier
            // (a mismatch usually shows at once)
            if !(p..MIN_REPEATS * p).all(|j| cs[i + j] == cs[i + j - p]) {
                continue;
            }
            let mut end = i + MIN_REPEATS * p;
            while end + p <= n && cs[end..end + p] == cs[i..i + p] {
                end += p;
            }
            if end - i < MIN_FOLDED {
                continue;
            }
            self.i = end;
            return Some(Run::Repeat {
                times: (end - i) / p,
                body: &cs[i..i + p],
            });
        }
        self.i = i + 1;
        Some(Run::One(cs[i]))
    }
}

/// Serializes choices folded ([`runs`]): `#[serde(serialize_with)]` of [`super::Path`].
pub fn serialize<S: serde::Serializer>(cs: &[Choice], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(None)?;
    for r in runs(cs) {
        match r {
            Run::One(c) => seq.serialize_element(&c)?,
            Run::Repeat { times, body } => seq.serialize_element(&Repeat {
                repeat: times,
                choices: body,
            })?,
        }
    }
    seq.end()
}

/// Reads choices written plain or folded, expanding the runs.
pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Choice>, D::Error> {
    /// Either form of an item: a choice, or a run of repeated choices.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Item {
        thread: Option<u32>,
        outcome: Option<u32>,
        repeat: Option<u64>,
        choices: Option<Vec<Choice>>,
    }
    struct Visit;
    impl<'de> serde::de::Visitor<'de> for Visit {
        type Value = Vec<Choice>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str(
                "a list of choices ({\"thread\", \"outcome\"} or {\"repeat\", \"choices\"})",
            )
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut a: A,
        ) -> Result<Vec<Choice>, A::Error> {
            use serde::de::Error;
            let mut out = Vec::new();
            while let Some(item) = a.next_element::<Item>()? {
                match item {
                    Item {
                        thread: Some(thread),
                        outcome: Some(outcome),
                        repeat: None,
                        choices: None,
                    } => out.push(Choice { thread, outcome }),
                    Item {
                        thread: None,
                        outcome: None,
                        repeat: Some(times),
                        choices: Some(body),
                    } => {
                        let total = (body.len() as u64)
                            .checked_mul(times)
                            .and_then(|k| k.checked_add(out.len() as u64));
                        if total.is_none_or(|t| t > MAX_CHOICES) {
                            return Err(A::Error::custom(format!(
                                "a path of more than {MAX_CHOICES} choices"
                            )));
                        }
                        for _ in 0..times {
                            out.extend_from_slice(&body);
                        }
                    }
                    _ => {
                        return Err(A::Error::custom(
                            "a choice has `thread` and `outcome`, a run `repeat` and `choices`",
                        ))
                    }
                }
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Visit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(thread: u32, outcome: u32) -> Choice {
        Choice { thread, outcome }
    }

    #[test]
    fn runs_fold_repetitions_and_reading_expands_them() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |k: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % k
        };
        for case in 0..300 {
            let mut cs = Vec::new();
            while cs.len() < 10 + case {
                let long = next(4) == 0;
                let body: Vec<Choice> = (0..1 + next(if long { 40 } else { 4 }))
                    .map(|_| c(next(2) as u32, next(3) as u32))
                    .collect();
                for _ in 0..next(9) {
                    cs.extend_from_slice(&body);
                }
            }
            let json = serde_json::to_string(&SerPath(&cs)).unwrap();
            let back: DePath = serde_json::from_str(&json).unwrap();
            assert_eq!(back.0, cs, "case {case}: {json}");
            // a run is never shorter than MIN_REPEATS periods
            for r in runs(&cs) {
                if let Run::Repeat { times, body } = r {
                    assert!(times >= MIN_REPEATS && !body.is_empty() && body.len() <= MAX_PERIOD);
                    assert!(times * body.len() >= MIN_FOLDED);
                }
            }
        }
        // a loop of a million identical choices is one item
        let cs = vec![c(0, 1); 1_000_000];
        let json = serde_json::to_string(&SerPath(&cs)).unwrap();
        assert_eq!(
            json,
            r#"[{"repeat":1000000,"choices":[{"thread":0,"outcome":1}]}]"#
        );
        // a forged run too long to expand is refused, as is an item of both forms
        let forged = r#"[{"repeat":4294967296,"choices":[{"thread":0,"outcome":1},{"thread":0,"outcome":1}]}]"#;
        assert!(serde_json::from_str::<DePath>(forged).is_err());
        let both = r#"[{"thread":0,"outcome":1,"repeat":2,"choices":[]}]"#;
        assert!(serde_json::from_str::<DePath>(both).is_err());
    }

    struct SerPath<'a>(&'a [Choice]);
    impl Serialize for SerPath<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            serialize(self.0, s)
        }
    }
    struct DePath(Vec<Choice>);
    impl<'de> Deserialize<'de> for DePath {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            deserialize(d).map(DePath)
        }
    }
}
