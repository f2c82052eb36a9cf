//! What the builtin tests that generate arguments share. Each test target uses a part.
#![allow(dead_code)]

pub mod arguments;
