//! Runtime values.

/// A heap address. Address 0 is the `globals` cell (seed 004 §4); objects start at 1.
pub type Addr = u32;

/// The distinguished address of the `globals` cell.
pub const GLOBALS: Addr = 0;

/// The value of a variable or field. In JSON (a report's initial valuation) it is typed, with
/// no Rust enum tags: a boolean, a number, `null`, or `{"ref": ADDRESS}` for a reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Ref(Addr),
    Null,
}

impl Value {
    /// The boolean in a boolean slot (false for anything else, which well-typed IR never has).
    #[inline]
    pub fn as_bool(self) -> bool {
        matches!(self, Value::Bool(true))
    }
}

impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::Null => s.serialize_unit(),
            Value::Ref(a) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("ref", a)?;
                m.end()
            }
        }
    }
}

impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        /// The JSON forms of a value.
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Json {
            Bool(bool),
            Int(i64),
            Null(()),
            Ref {
                #[serde(rename = "ref")]
                addr: Addr,
            },
        }
        Ok(match Json::deserialize(d)? {
            Json::Bool(b) => Value::Bool(b),
            Json::Int(i) => Value::Int(i),
            Json::Null(()) => Value::Null,
            Json::Ref { addr } => Value::Ref(addr),
        })
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{}", u8::from(*b)),
            Value::Int(i) => write!(f, "{i}"),
            Value::Ref(a) => write!(f, "#{a}"),
            Value::Null => write!(f, "null"),
        }
    }
}

/// A heap location: a field of a cell. Globals are the fields of the `globals` cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub addr: Addr,
    pub field: u32,
}
