//! Refresh: the record lives in state alone; the next plan reads the cluster again.

use crate::protocol::value::Value;

pub fn read(current: &Value) -> Value {
    current.clone()
}
