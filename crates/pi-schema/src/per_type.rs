//! One value per concrete type, built once: what a generic derived struct uses where a plain
//! one has a `static` (Rust's statics cannot depend on a type parameter).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{OnceLock, PoisonError, RwLock};

type Store = RwLock<HashMap<TypeId, &'static (dyn Any + Send + Sync)>>;

/// The value of type `V` for this program, built by `init` the first time it is asked for and
/// kept for the program's life (one per concrete `V`: a handful of schemas).
///
/// `init` runs without the store locked (it may ask for other values, as nested generic types
/// do); when two threads race, one value is kept and the other is dropped.
pub fn per_type<V: Send + Sync + 'static>(init: impl FnOnce() -> V) -> &'static V {
    static STORE: OnceLock<Store> = OnceLock::new();
    let store = STORE.get_or_init(Store::default);
    let key = TypeId::of::<V>();
    let found = store
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
        .copied();
    if let Some(value) = found.and_then(|value| value.downcast_ref::<V>()) {
        return value;
    }
    let built = init();
    let mut map = store.write().unwrap_or_else(PoisonError::into_inner);
    // Another thread may have stored one meanwhile: keep that one, drop ours.
    if let Some(value) = map
        .get(&key)
        .copied()
        .and_then(|value| value.downcast_ref::<V>())
    {
        return value;
    }
    // Leaked on purpose: the value lives as long as the program, like a `static`.
    let leaked: &'static V = Box::leak(Box::new(built));
    map.insert(key, leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_gets_one_value_built_once() {
        let first: &'static Vec<u8> = per_type(|| vec![1]);
        let again: &'static Vec<u8> = per_type(|| vec![2]);
        assert!(std::ptr::eq(first, again));
        assert_eq!(again, &vec![1]);
        let other: &'static Vec<u16> = per_type(|| vec![3]);
        assert_eq!(other, &vec![3]);
    }
}
