//! The crate's one error type.
//!
//! [`Error`] keeps its [`ErrorKind`] in a private field and carries a message
//! meant for people (it names the operation, the argument and the value).
//! Each kind becomes its own C status code; the table is in `docs/SEMANTICS.md`.

use std::fmt;
use std::sync::Arc;

/// Which side of a DualView an error or an operation concerns.
///
/// ```
/// use dualview::Side;
/// assert_eq!(Side::Host.other(), Side::Device);
/// assert_eq!(Side::Device.to_string(), "device");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The host mirror (`h_view`).
    Host,
    /// The device view (`d_view`).
    Device,
}

impl Side {
    /// The opposite side.
    ///
    /// ```
    /// # use dualview::Side;
    /// assert_eq!(Side::Device.other(), Side::Host);
    /// ```
    pub const fn other(self) -> Side {
        match self {
            Side::Host => Side::Device,
            Side::Device => Side::Host,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Host => "host",
            Side::Device => "device",
        })
    }
}

/// What went wrong. Each variant becomes its own status code in the C ABI.
///
/// ```
/// use dualview::{DynRank, ErrorKind};
/// let err = DynRank::new(&[1; 9]).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::RankTooLarge);
/// ```
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// An argument is malformed (bad layout strides, wrong element size, ...).
    InvalidArgument,
    /// A rank above [`MAX_RANK`](crate::MAX_RANK).
    RankTooLarge,
    /// The number of values or the rank does not match what was expected.
    RankMismatch,
    /// A value does not match a static (compile-time) extent.
    StaticMismatch,
    /// An axis, index or range lies outside the extents.
    OutOfRange,
    /// A size computation (extents product, bytes) overflows.
    Overflow,
    /// An allocation failed; nothing was changed.
    OutOfMemory,
    /// A modify of one side while the other side holds unsynced changes.
    ConcurrentModification,
    /// A sync would write into a DualView whose data is const.
    ConstSync,
    /// Two objects do not fit together (shapes, element sizes, spaces).
    Incompatible,
    /// The operation is refused on memory the library does not own (`dv_wrap`).
    Unmanaged,
    /// A subview whose parent was resized or reallocated since it was made.
    Stale,
    /// The data is borrowed by a live access guard.
    Busy,
    /// A CUDA space was asked for and there is no driver or no such device.
    NoDevice,
    /// A device driver call failed; the message has the driver's name and text.
    Device,
    /// A bug in this library (it includes caught panics).
    Internal,
    /// A required pointer was NULL (C ABI only).
    NullArgument,
    /// A handle that was destroyed, never created, or is not a DualView (C ABI only).
    InvalidHandle,
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
#[derive(Clone, Debug)]
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
