//! Element types: the [`Element`] trait of typed DualViews, the untyped
//! [`ElemSpec`] (size and alignment) the engine works with, and the C element
//! types [`Dtype`].

use crate::abi::*;
use crate::error::{bail, Result};
use crate::layout::Mapping;
use crate::space::ALIGNMENT;

/// A plain-old-data element type: copied bytewise between spaces, zero-filled
/// on allocation, filled from raw bytes by the untyped API.
///
/// # Safety
/// Implementors guarantee what `bytemuck::Pod` asks:
/// - **every bit pattern is a valid value** (so no `bool`, `char`, enums or
///   references), zero included;
/// - **no padding bytes** (a padded `#[repr(C)]` struct would make a fill or
///   copy read uninitialised memory);
/// - `Copy`, no drop glue, no interior pointers (values move between host and
///   device memory).
///
/// Typically a `#[repr(C)]` struct whose fields are numbers of one size.
///
/// ```
/// use dualview::Element;
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Vec3 { x: f64, y: f64, z: f64 }
/// // SAFETY: three f64: no padding, every bit pattern valid.
/// unsafe impl Element for Vec3 {}
/// ```
///
/// `bool`, `char` and other types with invalid bit patterns are not elements
/// (reliability item 14: a fill from raw bytes could make an invalid `bool`):
///
/// ```compile_fail
/// use dualview::{Dims, DualView};
/// let a = DualView::<bool, Dims<1>>::new("flags", Dims::new([4]).unwrap());
/// ```
///
/// Zero-sized and over-aligned types are refused when the code is compiled:
///
/// ```compile_fail
/// use dualview::{Dims, DualView, Element};
/// #[derive(Clone, Copy)]
/// struct Nothing;
/// // SAFETY: (a ZST has no bytes at all)
/// unsafe impl Element for Nothing {}
/// let a = DualView::<Nothing, Dims<1>>::new("z", Dims::new([4]).unwrap());
/// ```
pub unsafe trait Element: Copy + Send + Sync + 'static {
    /// Refuses zero-sized and over-aligned types at compile time.
    #[doc(hidden)]
    const CHECK: () = {
        assert!(std::mem::size_of::<Self>() > 0, "dualview: zero-sized element types are not supported");
        assert!(std::mem::align_of::<Self>() <= ALIGNMENT, "dualview: element alignment above 64 bytes is not supported");
    };
}

macro_rules! elements {
    ($($t:ty)*) => { $(
        // SAFETY: primitive numbers: every bit pattern (zero included) is valid, no padding.
        unsafe impl Element for $t {}
    )* };
}
elements!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64);

// SAFETY: an array of Elements has no padding between elements and is as plain as its element.
unsafe impl<T: Element, const N: usize> Element for [T; N] {}

/// The bytes of one element value (what a fill repeats).
pub(crate) fn bytes_of<T: Element>(v: &T) -> &[u8] {
    // SAFETY: T: Element is plain data without padding; its bytes are initialised.
    unsafe { std::slice::from_raw_parts(v as *const T as *const u8, std::mem::size_of::<T>()) }
}

/// Size and alignment of one element, in bytes: what the untyped engine and
/// the C ABI know of an element type.
///
/// ```
/// use dualview::ElemSpec;
/// let e = ElemSpec::of::<f64>();
/// assert_eq!((e.size(), e.align()), (8, 8));
/// assert!(ElemSpec::new(3, 2).is_err()); // size not a multiple of the alignment
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ElemSpec {
    size: usize,
    align: usize,
}

impl ElemSpec {
    /// An element of `size` bytes aligned to `align` (a power of two, at most 64).
    ///
    /// ```
    /// # use dualview::{ElemSpec, ErrorKind};
    /// assert_eq!(ElemSpec::new(16, 16).unwrap().size(), 16);
    /// assert_eq!(ElemSpec::new(0, 1).unwrap_err().kind(), ErrorKind::InvalidArgument);
    /// assert_eq!(ElemSpec::new(128, 128).unwrap_err().kind(), ErrorKind::InvalidArgument);
    /// ```
    pub fn new(size: usize, align: usize) -> Result<ElemSpec> {
        if size == 0 {
            bail!(InvalidArgument, "element size 0: zero-sized elements are not supported");
        }
        if !align.is_power_of_two() || align > ALIGNMENT {
            bail!(InvalidArgument, "element alignment {align} is not a power of two up to {ALIGNMENT}");
        }
        if !size.is_multiple_of(align) {
            bail!(InvalidArgument, "element size {size} is not a multiple of its alignment {align}");
        }
        Ok(ElemSpec { size, align })
    }

    /// The element of a Rust type.
    ///
    /// ```
    /// # use dualview::ElemSpec;
    /// assert_eq!(ElemSpec::of::<[u8; 3]>().size(), 3);
    /// ```
    pub const fn of<T: Element>() -> ElemSpec {
        #[allow(clippy::let_unit_value)]
        let () = T::CHECK;
        ElemSpec { size: std::mem::size_of::<T>(), align: std::mem::align_of::<T>() }
    }

    /// Size in bytes.
    ///
    /// ```
    /// # use dualview::ElemSpec;
    /// assert_eq!(ElemSpec::of::<u16>().size(), 2);
    /// ```
    pub const fn size(&self) -> usize {
        self.size
    }

    /// Alignment in bytes.
    ///
    /// ```
    /// # use dualview::ElemSpec;
    /// assert_eq!(ElemSpec::of::<u64>().align(), 8);
    /// ```
    pub const fn align(&self) -> usize {
        self.align
    }

    /// Bytes needed for `mapping`'s span, checked.
    pub(crate) fn bytes(&self, mapping: &Mapping) -> Result<usize> {
        match mapping.span().checked_mul(self.size) {
            Some(b) if b <= isize::MAX as usize => Ok(b),
            _ => bail!(Overflow, "{} elements of {} bytes exceed the largest array, 2^63 - 1 bytes", mapping.span(), self.size),
        }
    }
}

abi_enum! {
    /// The element types the C ABI names (`DV_DTYPE_*`).
    ///
    /// ```
    /// use dualview::element::Dtype;
    /// assert_eq!(Dtype::try_from(10u32).unwrap(), Dtype::Float64);
    /// assert_eq!(Dtype::Float64.to_string(), "float64 (double, real64)");
    /// ```
    pub enum Dtype ("dtype") {
        /// Raw bytes of a given size.
        Bytes = DV_DTYPE_BYTES => "bytes",
        /// `int8_t`.
        Int8 = DV_DTYPE_INT8 => "int8 (int8_t, integer(int8))",
        /// `int16_t`.
        Int16 = DV_DTYPE_INT16 => "int16 (int16_t, integer(int16))",
        /// `int32_t`.
        Int32 = DV_DTYPE_INT32 => "int32 (int32_t, integer(int32))",
        /// `int64_t`.
        Int64 = DV_DTYPE_INT64 => "int64 (int64_t, integer(int64))",
        /// `uint8_t`.
        Uint8 = DV_DTYPE_UINT8 => "uint8 (uint8_t)",
        /// `uint16_t`.
        Uint16 = DV_DTYPE_UINT16 => "uint16 (uint16_t)",
        /// `uint32_t`.
        Uint32 = DV_DTYPE_UINT32 => "uint32 (uint32_t)",
        /// `uint64_t`.
        Uint64 = DV_DTYPE_UINT64 => "uint64 (uint64_t)",
        /// `float`.
        Float32 = DV_DTYPE_FLOAT32 => "float32 (float, real32)",
        /// `double`.
        Float64 = DV_DTYPE_FLOAT64 => "float64 (double, real64)",
        /// `float _Complex`.
        Complex64 = DV_DTYPE_COMPLEX64 => "complex64 (float _Complex, complex(real32))",
        /// `double _Complex`.
        Complex128 = DV_DTYPE_COMPLEX128 => "complex128 (double _Complex, complex(real64))",
    }
}

impl Dtype {
    /// Size and alignment of the type; `None` for [`Dtype::Bytes`], whose size the caller gives.
    ///
    /// ```
    /// # use dualview::element::Dtype;
    /// assert_eq!(Dtype::Complex128.size_align(), Some((16, 8)));
    /// assert_eq!(Dtype::Bytes.size_align(), None);
    /// ```
    pub const fn size_align(self) -> Option<(usize, usize)> {
        Some(match self {
            Dtype::Bytes => return None,
            Dtype::Int8 | Dtype::Uint8 => (1, 1),
            Dtype::Int16 | Dtype::Uint16 => (2, 2),
            Dtype::Int32 | Dtype::Uint32 | Dtype::Float32 => (4, 4),
            Dtype::Int64 | Dtype::Uint64 | Dtype::Float64 => (8, 8),
            Dtype::Complex64 => (8, 4),
            Dtype::Complex128 => (16, 8),
        })
    }
}
