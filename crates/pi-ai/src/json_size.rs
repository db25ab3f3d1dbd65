//! How many bytes a JSON value takes as compact text, found without writing the text out.

use serde_json::Value;

/// The length of `value` serialised as compact JSON.
///
/// Used to bound what a response may hold and to size a request's buffer exactly: both must
/// know the size before (or instead of) holding a copy of the text.
pub fn json_len(value: &Value) -> usize {
    // A `Value` always serialises; were it ever to fail, what was counted stands.
    serialized_len(value).unwrap_or_else(|partial| partial)
}

/// The length of anything serialisable as compact JSON, found without writing it out; `Err`
/// holds what was counted when serialising failed.
pub fn serialized_len<T: serde::Serialize + ?Sized>(value: &T) -> Result<usize, usize> {
    let mut counter = Counter(0);
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => Ok(counter.0),
        Err(_) => Err(counter.0),
    }
}

/// A writer that only counts.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(bytes.len());
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::json_len;
    use serde_json::json;

    #[test]
    fn counts_what_to_string_writes() {
        let value = json!({"path": "a\"b", "n": [1, 2.5, null], "ü": true});
        assert_eq!(json_len(&value), value.to_string().len());
    }
}
