//! `dv_status_str`: the text of a status code. The codes themselves are the
//! table in `abi.rs`; each [`ErrorKind`](crate::ErrorKind) names its code.

pub use crate::abi::dv_status_t;

impl dv_status_t {
    /// The status for a raw value coming back from C (unknown values give `None`).
    pub(crate) fn from_raw(v: i32) -> Option<dv_status_t> {
        dv_status_t::ALL.iter().copied().find(|s| *s as i32 == v)
    }
}

/// A static, NUL-terminated description of a status code ("unknown status"
/// for values that are not a `dv_status_t`). Never NULL; never free it.
#[unsafe(no_mangle)]
pub extern "C" fn dv_status_str(status: i32) -> *const std::ffi::c_char {
    match dv_status_t::from_raw(status) {
        Some(s) => s.text().as_ptr(),
        None => c"unknown status".as_ptr(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn every_kind_has_its_own_code_and_text() {
        let mut codes: Vec<i32> = ErrorKind::ALL.iter().map(|k| k.status() as i32).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), ErrorKind::ALL.len());
        assert_eq!(dv_status_t::ALL.len(), ErrorKind::ALL.len() + 1);
        for s in dv_status_t::ALL {
            let t = s.text().to_str().unwrap();
            assert!(t.starts_with(&format!("{s:?}: ")), "{t}");
        }
    }
}
