//! `Element`: the types a typed DualView may hold.

/// A plain-data element type: copied bytewise between spaces and zero-filled
/// on allocation.
///
/// # Safety
/// Implementors guarantee that all-zero bytes are a valid value, that any
/// bytes copied from a valid value are a valid value, and that the type has no
/// drop glue or interior pointers (it moves between host and device memory).
/// Typically a `#[repr(C)]` struct of numbers.
///
/// ```
/// use dualview::Element;
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Vec3 { x: f64, y: f64, z: f64 }
/// // SAFETY: three f64, no padding, zero is valid.
/// unsafe impl Element for Vec3 {}
/// ```
pub unsafe trait Element: Copy + Send + Sync + 'static {}

macro_rules! elements {
    ($($t:ty)*) => { $(
        // SAFETY: primitive numbers: every bit pattern (zero included) is valid.
        unsafe impl Element for $t {}
    )* };
}
elements!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64);

// SAFETY: an array of Elements is as plain as its element.
unsafe impl<T: Element, const N: usize> Element for [T; N] {}
