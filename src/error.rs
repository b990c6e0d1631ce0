//! The crate's one error type.
//!
//! [`Error`] keeps its [`ErrorKind`] in a private field and carries a message
//! meant for people (it names the operation, the argument and the value).
//! Each kind becomes its own C status code; the table is in `docs/SEMANTICS.md`.

use crate::abi::dv_status_t;
use crate::side::Side;

// Side comes before Error in the layers; its conversion from the C value answers an Error.
crate::abi::abi_enum_try_from!(Side, "side");
use std::fmt;
use std::sync::Arc;

/// Declares [`ErrorKind`] from the status table of `abi.rs`: each kind, its
/// C status and the short text of `dv_status_str`.
macro_rules! error_kinds {
    ($( $(#[$m:meta])* $kind:ident = $status:ident, $text:literal; )+) => {
        /// What went wrong. Each variant is its own C status code
        /// ([`ErrorKind::status`]); the table is in `docs/SEMANTICS.md`.
        ///
        /// ```
        /// use dualview::{DynRank, ErrorKind};
        /// let err = DynRank::new(&[1; 9]).unwrap_err();
        /// assert_eq!(err.kind(), ErrorKind::RankTooLarge);
        /// ```
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorKind {
            $( $(#[$m])* $kind, )+
        }

        impl ErrorKind {
            /// Every kind.
            pub const ALL: &'static [ErrorKind] = &[$(ErrorKind::$kind),+];

            /// The C status code of this kind.
            ///
            /// ```
            /// # use dualview::ErrorKind;
            /// assert_eq!(ErrorKind::Stale.status() as u32, 17);
            /// ```
            pub const fn status(self) -> dv_status_t {
                match self { $(ErrorKind::$kind => dv_status_t::$status,)+ }
            }

            /// A short description (the text of `dv_status_str`).
            ///
            /// ```
            /// # use dualview::ErrorKind;
            /// assert_eq!(ErrorKind::Busy.description(), "data borrowed by an access guard");
            /// ```
            pub const fn description(self) -> &'static str {
                match self { $(ErrorKind::$kind => $text,)+ }
            }
        }

        impl dv_status_t {
            /// `"NAME: description"`, NUL-terminated, for `dv_status_str`.
            pub const fn text(self) -> &'static std::ffi::CStr {
                let s: &'static [u8] = match self {
                    dv_status_t::DV_OK => b"DV_OK: success\0",
                    $(dv_status_t::$status => concat!(stringify!($status), ": ", $text, "\0").as_bytes(),)+
                };
                match std::ffi::CStr::from_bytes_with_nul(s) {
                    Ok(c) => c,
                    Err(_) => c"unknown status",
                }
            }

            /// Every status, `DV_OK` first.
            pub const ALL: &'static [dv_status_t] = &[dv_status_t::DV_OK, $(dv_status_t::$status),+];
        }
    };
}

error_kinds! {
    /// A required pointer was NULL (C ABI only).
    NullArgument = DV_ERROR_NULL_ARGUMENT, "a required pointer was NULL";
    /// An argument is malformed (bad layout strides, wrong element size, a write through a const handle, ...).
    InvalidArgument = DV_ERROR_INVALID_ARGUMENT, "malformed argument";
    /// A handle that was destroyed, never created, or is not a DualView (C ABI only).
    InvalidHandle = DV_ERROR_INVALID_HANDLE, "destroyed, never-created or foreign handle";
    /// A rank above [`MAX_RANK`](crate::MAX_RANK).
    RankTooLarge = DV_ERROR_RANK, "rank above 8";
    /// An axis, index or range lies outside the extents.
    OutOfRange = DV_ERROR_OUT_OF_RANGE, "axis, index or range out of range";
    /// A size computation (extents product, bytes) overflows.
    Overflow = DV_ERROR_OVERFLOW, "size overflow";
    /// An allocation failed; nothing was changed.
    OutOfMemory = DV_ERROR_OUT_OF_MEMORY, "allocation failed";
    /// A modify of one side while the other side holds unsynced changes.
    ConcurrentModification = DV_ERROR_CONCURRENT_MODIFICATION, "both sides modified";
    /// A sync would write into a DualView whose data is const.
    ConstSync = DV_ERROR_CONST_SYNC, "sync into const data";
    /// Two objects do not fit together (shapes, element sizes, spaces).
    Incompatible = DV_ERROR_INCOMPATIBLE, "incompatible shapes, elements or spaces";
    /// A space was asked for that this machine or build cannot serve: no
    /// driver, no such device (the message says which space and why).
    NoDevice = DV_ERROR_NO_DEVICE, "no driver or device for the space";
    /// A device driver call failed; the message has the driver's name and text.
    Device = DV_ERROR_DEVICE, "device driver error";
    /// A bug in this library (it includes caught panics).
    Internal = DV_ERROR_INTERNAL, "internal error";
    /// The number of values or the rank does not match what was expected.
    RankMismatch = DV_ERROR_RANK_MISMATCH, "wrong rank or number of values";
    /// A value does not match a static (compile-time) extent.
    StaticMismatch = DV_ERROR_STATIC_MISMATCH, "value contradicts a static extent";
    /// The operation is refused on memory the library does not own (`dv_wrap`).
    Unmanaged = DV_ERROR_UNMANAGED, "caller-owned memory cannot be reallocated";
    /// A subview whose parent was resized or reallocated since it was made.
    Stale = DV_ERROR_STALE, "subview of a resized parent";
    /// The data is borrowed by a live access guard.
    Busy = DV_ERROR_BUSY, "data borrowed by an access guard";
    /// Checked mode: a side changed where it was not marked modified.
    UnmarkedChange = DV_ERROR_UNMARKED_CHANGE, "a side changed without being marked modified";
}

/// The error of every fallible call in the crate.
///
/// ```
/// use dualview::{DualView, Dims, ErrorKind, Side, Space};
/// let a = DualView::<f64, Dims<1>>::builder("A", Dims::new([4]).unwrap())
///     .device(Space::test_device(0))
///     .build()
///     .unwrap();
/// a.modify_host().unwrap();
/// let err = a.modify_device().unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::ConcurrentModification);
/// assert_eq!(err.label(), Some("A"));
/// assert_eq!(err.side(), Some(Side::Device));
/// assert!(err.to_string().contains("\"A\""));
/// ```
#[derive(Clone)]
pub struct Error(Box<Inner>);

/// Boxed so that `Result<(), Error>` is one pointer wide and `Ok` costs nothing on hot paths.
#[derive(Clone, Debug)]
struct Inner {
    kind: ErrorKind,
    message: String,
    label: Option<Arc<str>>,
    side: Option<Side>,
}

/// The crate's result type.
///
/// ```
/// # use dualview::{Dims, Result};
/// fn make() -> Result<Dims<1>> { Dims::new([3]) }
/// assert!(make().is_ok());
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` with a message for people.
    ///
    /// ```
    /// # use dualview::{Error, ErrorKind};
    /// let e = Error::new(ErrorKind::OutOfRange, "axis 3 >= rank 2");
    /// assert_eq!(e.message(), "axis 3 >= rank 2");
    /// ```
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error(Box::new(Inner { kind, message: message.into(), label: None, side: None }))
    }

    /// Attach the DualView label and the side concerned.
    pub(crate) fn on(mut self, label: &Arc<str>, side: Option<Side>) -> Error {
        self.0.label = Some(label.clone());
        if side.is_some() {
            self.0.side = side;
        }
        self
    }

    /// What went wrong.
    ///
    /// ```
    /// # use dualview::{Error, ErrorKind};
    /// assert_eq!(Error::new(ErrorKind::Busy, "x").kind(), ErrorKind::Busy);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The message, without the label prefix.
    ///
    /// ```
    /// # use dualview::{Error, ErrorKind};
    /// assert_eq!(Error::new(ErrorKind::Busy, "borrowed").message(), "borrowed");
    /// ```
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The label of the DualView concerned, when there is one.
    ///
    /// ```
    /// # use dualview::{Error, ErrorKind};
    /// assert_eq!(Error::new(ErrorKind::Busy, "x").label(), None);
    /// ```
    pub fn label(&self) -> Option<&str> {
        self.0.label.as_deref()
    }

    /// The side concerned, when there is one.
    ///
    /// ```
    /// # use dualview::{Error, ErrorKind};
    /// assert_eq!(Error::new(ErrorKind::Busy, "x").side(), None);
    /// ```
    pub fn side(&self) -> Option<Side> {
        self.0.side
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.label {
            Some(l) => write!(f, "DualView \"{l}\": {}", self.0.message),
            None => f.write_str(&self.0.message),
        }
    }
}

/// Reads like the message, with the kind first, so that `fn main() -> Result<()>`
/// prints something useful: `ConcurrentModification: DualView "A": ...`.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {self}", self.0.kind)
    }
}

impl std::error::Error for Error {}

/// Shorthand for `Err(Error::new(kind, format!(...)))`.
macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err($crate::error::Error::new($crate::error::ErrorKind::$kind, format!($($arg)*)))
    };
}
pub(crate) use bail;

/// Shorthand for `Error::new(kind, format!(...))`.
macro_rules! err {
    ($kind:ident, $($arg:tt)*) => {
        $crate::error::Error::new($crate::error::ErrorKind::$kind, format!($($arg)*))
    };
}
pub(crate) use err;
