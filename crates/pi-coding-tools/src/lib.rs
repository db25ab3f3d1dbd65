//! Pi's built-in coding tools.
//!
//! For now this crate holds their parameters: the seven schemas Pi shows a model (`read`,
//! `write`, `edit`, `bash`, `grep`, `find`, `ls`), each declared once as a typed Rust struct
//! whose JSON Schema and parser come from the same declaration.

pub mod params;
