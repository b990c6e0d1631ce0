//! `View`: a single-space array (label, element size, mapping, space and a
//! reference-counted allocation), untyped so that the C ABI can share it.

mod raw;

use crate::element::ElemSpec;
use crate::error::Result;
use crate::extents::DynRank;
use crate::layout::{Layout, Mapping, Slice};
use crate::memory::Allocation;
use crate::space::{Region, Space};
use std::fmt;
use std::sync::Arc;

/// A single-space array. Clones share the allocation (like a Kokkos View copy).
///
/// ```
/// use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
/// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
/// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
/// assert_eq!((v.label(), v.size(), v.span()), ("v", 6, 6));
/// assert_eq!(v.data() as usize % 64, 0);
/// let w = v.clone();
/// assert_eq!(v.use_count(), 2);
/// # drop(w);
/// ```
#[derive(Clone)]
pub struct View {
    label: Arc<str>,
    elem: ElemSpec,
    mapping: Mapping,
    space: Space,
    alloc: Arc<Allocation>,
    /// Offset of the element at index 0, in elements.
    offset: usize,
}

impl View {
    /// Allocate a view in `space`, zero-filled when `init`.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View, ErrorKind};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4]).unwrap()).unwrap();
    /// let r = View::new("g", ElemSpec::of::<f32>(), m, Space::cuda(0), true);
    /// if dualview::memory::cuda_device_count() > 0 {
    ///     assert_eq!(r.unwrap().space(), Space::cuda(0)); // four zeros in device memory
    /// } else {
    ///     assert_eq!(r.unwrap_err().kind(), ErrorKind::NoDevice); // no driver or no GPU here
    /// }
    /// ```
    pub fn new(label: &str, elem: ElemSpec, mapping: Mapping, space: Space, init: bool) -> Result<View> {
        let bytes = elem.bytes(&mapping)?;
        let label: Arc<str> = label.into();
        let alloc = Allocation::new(space, bytes, init, &label)?;
        Ok(View { label, elem, mapping, space, alloc, offset: 0 })
    }

    pub(crate) fn from_parts(label: Arc<str>, elem: ElemSpec, mapping: Mapping, alloc: Arc<Allocation>, offset: usize) -> View {
        View { label, elem, mapping, space: alloc.space(), alloc, offset }
    }

    /// The label.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// assert_eq!(v.label(), "v");
    /// ```
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The element description.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// assert_eq!(v.elem().size(), 4);
    /// ```
    pub fn elem(&self) -> ElemSpec {
        self.elem
    }

    /// The layout mapping.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// assert_eq!(v.mapping().span(), 6);
    /// ```
    pub fn mapping(&self) -> &Mapping {
        &self.mapping
    }

    /// The extents.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// assert_eq!(v.extents().as_slice(), &[2, 3]);
    /// ```
    pub fn extents(&self) -> &DynRank {
        self.mapping.extents()
    }

    /// The layout.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// assert_eq!(v.layout(), Layout::Right);
    /// ```
    pub fn layout(&self) -> Layout {
        self.mapping.layout()
    }

    /// The memory space.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// assert_eq!(v.space(), Space::HOST);
    /// ```
    pub fn space(&self) -> Space {
        self.space
    }

    /// Address of the element at index 0 (in the view's space).
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// assert!(!v.data().is_null());
    /// ```
    pub fn data(&self) -> *mut u8 {
        // Stays inside the allocation: offset < span of the parent mapping,
        // or 0 for empty views.
        self.alloc.ptr().wrapping_add(self.offset * self.elem.size())
    }

    /// The number of elements.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// assert_eq!(v.size(), 6);
    /// ```
    pub fn size(&self) -> usize {
        self.mapping.size()
    }

    /// The required span in elements.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// assert_eq!(v.span(), 6);
    /// ```
    pub fn span(&self) -> usize {
        self.mapping.span()
    }

    /// Whether the span holds no gaps.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// assert!(v.span_is_contiguous());
    /// ```
    pub fn span_is_contiguous(&self) -> bool {
        self.mapping.span_is_contiguous()
    }

    /// How many views, DualViews and guards share the allocation.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// assert_eq!(v.use_count(), 1);
    /// ```
    pub fn use_count(&self) -> usize {
        Arc::strong_count(&self.alloc)
    }

    /// Whether dualview owns the memory (false for views over caller memory, Kokkos "unmanaged").
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// assert!(v.is_owned());
    /// ```
    pub fn is_owned(&self) -> bool {
        self.alloc.is_owned()
    }

    /// The allocation behind the view.
    pub(crate) fn allocation(&self) -> &Arc<Allocation> {
        &self.alloc
    }

    /// A subview sharing this view's allocation.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Slice, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[4, 4]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u8>(), m, Space::HOST, true).unwrap();
    /// let row = v.subview(&[Slice::Index(2), Slice::All]).unwrap();
    /// assert_eq!(row.extents().as_slice(), &[4]);
    /// assert_eq!(row.data() as usize - v.data() as usize, 8);
    /// ```
    pub fn subview(&self, slices: &[Slice]) -> Result<View> {
        let (mapping, off) = self.mapping.subview(slices)?;
        Ok(View { mapping, offset: self.offset + off, ..self.clone() })
    }

    pub(crate) fn region(&self) -> Region {
        Region {
            ptr: self.data(),
            elem_size: self.elem.size(),
            extents: *self.mapping.extents(),
            strides: *self.mapping.strides(),
        }
    }
}

impl fmt::Debug for View {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("View")
            .field("label", &self.label)
            .field("elem", &self.elem)
            .field("mapping", &self.mapping)
            .field("space", &self.space)
            .finish()
    }
}
