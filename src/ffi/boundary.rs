//! The panic boundary, the thread-local last error, and every raw-pointer
//! conversion of the C ABI (the rustls-ffi model).
//!
//! Every exported function runs its body through [`call`]: a panic becomes
//! `DV_ERROR_INTERNAL`, an error becomes its status, and the message (prefixed
//! with the function's name) is kept for `dv_last_error()`.
//!
//! The pointer helpers at the end are safe to call and crate-private: their
//! only callers are the `extern "C"` entries, passing the pointers their C
//! caller gave, and `include/dualview.h` states what each must point to. That
//! promise is their soundness argument, written here once.

use super::status::dv_status_t;
use crate::dual_view::{Desc, RawDualView};
use crate::error::{bail, Error, ErrorKind, Result};
use crate::space::{Space, Stream};
use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::Arc;

thread_local! {
    static LAST: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last(function: &str, message: &str) {
    let text = format!("{function}: {}", in_c_terms(message)).replace('\0', " ");
    // During thread exit the slot may be gone (a call from a TLS destructor): no record then.
    let _ = LAST.try_with(|l| *l.borrow_mut() = CString::new(text).unwrap_or_default());
}

/// The calls the core's messages advise or name, written `sync_host()`.
const CALLS: [&str; 5] = ["modify_host", "modify_device", "sync_host", "sync_device", "clear_sync_state"];

/// A core message in C's terms: `sync_host()` becomes `dv_sync_host()` (the
/// C++ header and the Fortran module rewrite that form into theirs).
fn in_c_terms(message: &str) -> String {
    let mut out = String::with_capacity(message.len() + 16);
    let mut rest = message;
    // Only a name right before "()" can be a call: each "()" is looked at once.
    while let Some(at) = rest.find("()") {
        let head = &rest[..at];
        if let Some(name) = CALLS.iter().find(|n| head.ends_with(*n)) {
            let before = &head[..head.len() - name.len()];
            out.push_str(before);
            let prev = out.chars().last();
            if !prev.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '%')) {
                out.push_str("dv_");
            }
            out.push_str(name);
        } else {
            out.push_str(head);
        }
        out.push_str("()");
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out
}

/// The exported function's name, worked out only when a message needs it
/// (a `&str`, or the closure that [`function!`] makes).
pub(crate) trait FnName {
    /// The name.
    fn name(self) -> &'static str;
}

impl FnName for &'static str {
    fn name(self) -> &'static str {
        self
    }
}

impl<F: FnOnce() -> &'static str> FnName for F {
    fn name(self) -> &'static str {
        self()
    }
}

/// Run `body` for the exported function `function`, mapping errors and panics.
#[inline]
pub(crate) fn call(function: impl FnName, body: impl FnOnce() -> Result<(), Error>) -> dv_status_t {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => dv_status_t::DV_OK,
        Ok(Err(e)) => fail(function.name(), &e),
        Err(p) => panicked(function.name(), p),
    }
}

/// Like [`call`] for functions that return a value instead of a status.
#[inline]
pub(crate) fn call_or<T>(function: &str, fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|p| {
        panicked(function, p);
        fallback
    })
}

#[cold]
fn fail(function: &str, e: &Error) -> dv_status_t {
    set_last(function, &e.to_string());
    e.kind().status()
}

#[cold]
fn panicked(function: &str, p: Box<dyn std::any::Any + Send>) -> dv_status_t {
    let what = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    set_last(function, &format!("internal error (panic caught at the C boundary): {what}"));
    dv_status_t::DV_ERROR_INTERNAL
}

/// A NULL-argument error naming the parameter.
#[cold]
pub(crate) fn null(arg: &str) -> Error {
    Error::new(ErrorKind::NullArgument, format!("argument `{arg}` is NULL"))
}

/// The name of the enclosing function, for error messages (`dv_create`):
/// a closure, so that the hot paths never spend time on it.
macro_rules! function {
    () => {{
        fn f() {}
        move || $crate::ffi::boundary::last_segment(std::any::type_name_of_val(&f))
    }};
}
pub(crate) use function;

/// `a::b::name` of `a::b::name::f` (the helper of [`function!`]).
pub(crate) fn last_segment(full: &'static str) -> &'static str {
    let full = &full[..full.len() - 3];
    match full.rfind("::") {
        Some(i) => &full[i + 2..],
        None => full,
    }
}

/// The message of the last failed call on this thread ("" when none).
///
/// The text names the function, the argument and the value. It stays valid
/// until the next failing dualview call on the same thread. Never NULL; do
/// not free it. Thread-safe: each thread has its own.
#[unsafe(no_mangle)]
pub extern "C" fn dv_last_error() -> *const c_char {
    // During thread exit the slot may be gone: "" (a static string) then, never a panic.
    LAST.try_with(|l| l.borrow().as_ptr()).unwrap_or(c"".as_ptr())
}

/// Copy the last error message of this thread into `buf` (for Fortran and for
/// callers that keep the text): at most `buf_len - 1` bytes plus a NUL. The
/// full length (without NUL) goes to `*len` when `len` is not NULL. `buf`
/// may be NULL when `buf_len` is 0. Returns the number of bytes copied.
///
/// # Safety
/// `buf` points to `buf_len` writable bytes (or is NULL with `buf_len == 0`);
/// `len` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_last_error_copy(buf: *mut c_char, buf_len: usize, len: *mut usize) -> usize {
    call_or("dv_last_error_copy", 0, || {
        let text = LAST.try_with(|l| l.borrow().as_bytes().to_vec()).unwrap_or_default();
        let buf_len = if buf.is_null() { 0 } else { buf_len };
        // A NULL `buf` copies nothing.
        copy_text(&text, buf, buf_len, len).unwrap_or(0)
    })
}

/// Make `message` this thread's last error, as a failure of status `code`
/// (a `DV_ERROR_*`) would: for bindings that detect a failure themselves (the
/// Fortran module), so that `dv_last_error()` names the last failure, not an
/// older one. The text is kept as given.
///
/// Errors: NULL `message` is `DV_ERROR_NULL_ARGUMENT`; `code` `DV_OK` or not a
/// status is `DV_ERROR_INVALID_ARGUMENT` (the message is then the refusal's).
///
/// # Safety
/// `message` is NULL or NUL-terminated.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_last_error_set(code: i32, message: *const c_char) -> dv_status_t {
    call("dv_last_error_set", || {
        let (text, _) = label(message, "message")?;
        match dv_status_t::from_raw(code) {
            Some(s) if s != dv_status_t::DV_OK => {}
            _ => crate::error::bail!(InvalidArgument, "argument `code` is {code}, not a DV_ERROR_* status"),
        }
        // A C string holds no NUL: the conversion cannot fail. During thread exit the slot may be gone: no record then.
        let _ = LAST.try_with(|l| *l.borrow_mut() = CString::new(text).unwrap_or_default());
        Ok(())
    })
}

// ---- raw pointers from C --------------------------------------------------------
//
// Each helper below is called only by the C entries, with pointers their C
// caller passed; include/dualview.h states what each must point to.

/// Read `*p`, or fail with a NULL-argument error naming `arg`.
pub(crate) fn read<'a, T>(p: *const T, arg: &str) -> Result<&'a T> {
    // SAFETY: C contract (include/dualview.h): a non-NULL `p` points to a valid T.
    unsafe { p.as_ref() }.ok_or_else(|| null(arg))
}

/// `*p`, or `None` for NULL (an optional input).
pub(crate) fn read_optional<'a, T>(p: *const T) -> Option<&'a T> {
    // SAFETY: C contract (include/dualview.h): `p` is NULL or points to a valid T.
    unsafe { p.as_ref() }
}

/// `n` values at `p` (none when `n` is 0, where `p` may be NULL), or a
/// NULL-argument error naming `arg`.
pub(crate) fn read_slice<'a, T>(p: *const T, n: usize, arg: &str) -> Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(null(arg));
    }
    // SAFETY: C contract (include/dualview.h): a non-NULL `p` points to `n` values.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// The `size` bytes of one element value at `value`, or a NULL-argument error.
pub(crate) fn element_bytes<'a>(value: *const c_void, size: usize) -> Result<&'a [u8]> {
    if value.is_null() {
        return Err(null("value"));
    }
    // SAFETY: C contract (include/dualview.h): `value` points to one element of `size` bytes.
    Ok(unsafe { std::slice::from_raw_parts(value as *const u8, size) })
}

/// Check that an output pointer is not NULL (written later, on success).
pub(crate) fn out<T>(p: *mut T, arg: &str) -> Result<*mut T> {
    if p.is_null() {
        return Err(null(arg));
    }
    Ok(p)
}

/// Write an output checked by [`out`].
pub(crate) fn put<T>(p: *mut T, v: T) {
    // SAFETY: C contract (include/dualview.h): `p`, checked non-NULL by `out`, is writable.
    unsafe { p.write(v) }
}

/// Write `values` into the out array `p` of room `n`, from its start (at
/// most `n` values; the callers check the count first).
pub(crate) fn put_array<T>(p: *mut T, n: usize, values: impl IntoIterator<Item = T>) {
    for (i, v) in values.into_iter().take(n).enumerate() {
        // SAFETY: C contract (include/dualview.h): `p`, checked non-NULL by `out`, has room for `n` values; i < n.
        unsafe { p.add(i).write(v) }
    }
}

/// A label from C: its text (invalid UTF-8 shown as U+FFFD) and, when the
/// bytes are not UTF-8, the bytes themselves, which `dv_label` gives back.
pub(crate) fn label(p: *const c_char, arg: &str) -> Result<(String, Option<Arc<[u8]>>)> {
    if p.is_null() {
        return Err(null(arg));
    }
    // SAFETY: C contract (include/dualview.h): a non-NULL label is NUL-terminated.
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
    Ok(match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_owned(), None),
        Err(_) => (String::from_utf8_lossy(bytes).into_owned(), Some(bytes.into())),
    })
}

/// The text of an optional C string (invalid UTF-8 shown as U+FFFD), `None` for NULL.
pub(crate) fn optional_text<'a>(p: *const c_char) -> Option<Cow<'a, str>> {
    if p.is_null() {
        return None;
    }
    // SAFETY: C contract (include/dualview.h): a non-NULL string is NUL-terminated.
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy())
}

/// Copy `bytes` and a NUL into `buf` (at most `buf_len - 1` bytes), the full
/// length into `*len` when `len` is not NULL; returns the bytes copied.
pub(crate) fn copy_text(bytes: &[u8], buf: *mut c_char, buf_len: usize, len: *mut usize) -> Result<usize> {
    if buf.is_null() && buf_len != 0 {
        return Err(null("buf"));
    }
    if !len.is_null() {
        put(len, bytes.len());
    }
    if buf_len == 0 {
        return Ok(0);
    }
    let n = bytes.len().min(buf_len - 1);
    // SAFETY: C contract (include/dualview.h): `buf` holds `buf_len` >= n + 1 bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr() as *const c_char, buf, n);
        *buf.add(n) = 0;
    }
    Ok(n)
}

/// `argv[0..*argc]` as strings (none when either is NULL).
pub(crate) fn argv_strings(argc: *const c_int, argv: *const *mut c_char) -> Result<Vec<String>> {
    if argc.is_null() || argv.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: C contract (include/dualview.h, `dv_initialize`): `argc` is valid,
    // `argv` holds `*argc` pointers, each NULL or NUL-terminated.
    unsafe {
        let n = *argc;
        if n < 0 {
            bail!(InvalidArgument, "*argc is {n}, negative");
        }
        (0..n as usize)
            .map(|i| {
                let p = *argv.add(i);
                if p.is_null() {
                    bail!(NullArgument, "argv[{i}] is NULL");
                }
                Ok(CStr::from_ptr(p).to_string_lossy().into_owned())
            })
            .collect()
    }
}

/// Drop the arguments `remove` picks from `argv[1..n]`, keeping the order of
/// the rest, and lower `*argc`; `n` is `*argc`, read by [`argv_strings`].
pub(crate) fn argv_remove(argc: *mut c_int, argv: *mut *mut c_char, n: usize, remove: impl Fn(&[u8]) -> bool) {
    let mut kept = 1;
    // SAFETY: C contract (include/dualview.h, `dv_initialize`): `argc` is valid and
    // `argv` holds `n` = `*argc` string pointers; kept <= i < n.
    unsafe {
        for i in 1..n {
            let p = *argv.add(i);
            if !remove(CStr::from_ptr(p).to_bytes()) {
                *argv.add(kept) = p;
                kept += 1;
            }
        }
        *argc = kept as c_int;
    }
}

/// [`RawDualView::wrap`] over memory the C caller owns (`dv_wrap`).
pub(crate) fn wrap_caller_memory(label: &str, desc: &Desc, host: NonNull<u8>, device: Option<NonNull<u8>>) -> Result<RawDualView> {
    // SAFETY: C contract (include/dualview.h, `dv_wrap`): `host` (and `device`)
    // address `span` elements in their spaces and outlive the DualView.
    unsafe { RawDualView::wrap(label, desc, host, device) }
}

/// Release a stream the C caller got from `dv_stream_create` (`dv_stream_destroy`).
pub(crate) fn stream_destroy(space: Space, stream: *mut c_void) -> Result<()> {
    // SAFETY: C contract (include/dualview.h, `dv_stream_destroy`): `stream` is
    // NULL or came from `dv_stream_create` and is not used afterwards.
    unsafe { crate::memory::stream::destroy(space, Stream::from_raw(stream as usize)) }
}

/// Set the Kokkos Tools callback of `event` to the C caller's `f` (`dv_tools_set_callback`).
pub(crate) fn set_tools_callback(event: u32, f: Option<unsafe extern "C" fn()>) -> Result<()> {
    // SAFETY: C contract (include/dualview.h, `dv_tools_set_callback`): `f` has
    // the C signature Kokkos gives `event` and stays callable while set.
    unsafe { crate::tools::set_callback(event, f) }
}

/// Whether `addr` lies on the calling thread's stack: a compiler's automatic
/// storage (its temporaries live there), as opposed to heap or static memory,
/// which only named objects occupy. The bounds are read once per thread.
pub(crate) fn on_callers_stack(addr: usize) -> bool {
    thread_local! {
        static STACK: (usize, usize) = stack_bounds();
    }
    STACK.with(|&(lo, hi)| lo <= addr && addr < hi) || in_asan_fake_stack(addr)
}

/// Whether `addr` lies in AddressSanitizer's fake stack of the calling thread: with
/// `detect_stack_use_after_return`, ASan moves a function's locals there (heap memory).
#[cfg(all(target_os = "linux", not(miri)))]
fn in_asan_fake_stack(addr: usize) -> bool {
    type Current = unsafe extern "C" fn() -> *mut c_void;
    type IsIn = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut *mut c_void, *mut *mut c_void) -> *mut c_void;
    static ASAN: std::sync::OnceLock<Option<(Current, IsIn)>> = std::sync::OnceLock::new();
    let found = ASAN.get_or_init(|| {
        // SAFETY: dlsym with the default handle and NUL-terminated names only looks them up;
        // where found they are ASan's interface functions of these signatures
        // (sanitizer/asan_interface.h), so the transmutes give their types.
        unsafe {
            let (c, i) = (
                libc::dlsym(libc::RTLD_DEFAULT, c"__asan_get_current_fake_stack".as_ptr()),
                libc::dlsym(libc::RTLD_DEFAULT, c"__asan_addr_is_in_fake_stack".as_ptr()),
            );
            (!c.is_null() && !i.is_null()).then(|| (std::mem::transmute::<*mut c_void, Current>(c), std::mem::transmute::<*mut c_void, IsIn>(i)))
        }
    });
    let Some((current, is_in)) = *found else { return false };
    // SAFETY: ASan's own functions; a null fake stack (none on this thread) is not asked, and
    // the two out-pointers may be null (they are optional).
    unsafe {
        let fake = current();
        !fake.is_null() && !is_in(fake, addr as *mut c_void, std::ptr::null_mut(), std::ptr::null_mut()).is_null()
    }
}

#[cfg(not(all(target_os = "linux", not(miri))))]
fn in_asan_fake_stack(_: usize) -> bool {
    false
}

/// The calling thread's stack, `lo..hi` (everything where it cannot be read:
/// then every object may be a temporary, the cautious answer).
#[cfg(all(target_os = "linux", not(miri)))]
fn stack_bounds() -> (usize, usize) {
    let mut attr = std::mem::MaybeUninit::<libc::pthread_attr_t>::uninit();
    let (mut base, mut size) = (std::ptr::null_mut(), 0usize);
    // SAFETY: pthread_getattr_np initialises `attr` for the calling thread when it
    // returns 0; only then is it read (pthread_attr_getstack) and destroyed, once.
    let ok = unsafe {
        libc::pthread_getattr_np(libc::pthread_self(), attr.as_mut_ptr()) == 0 && {
            let got = libc::pthread_attr_getstack(attr.as_ptr(), &mut base, &mut size) == 0;
            libc::pthread_attr_destroy(attr.as_mut_ptr());
            got
        }
    };
    if ok { (base as usize, base as usize + size) } else { (0, usize::MAX) }
}

#[cfg(not(all(target_os = "linux", not(miri))))]
fn stack_bounds() -> (usize, usize) {
    (0, usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    /// A call from a thread-local destructor, when this thread's record of the
    /// last error may be gone already, answers without a panic.
    #[test]
    fn calls_during_thread_exit_never_panic() {
        struct AtExit;
        impl Drop for AtExit {
            fn drop(&mut self) {
                set_last("dv_test", "failing during thread exit");
                assert!(!dv_last_error().is_null());
                let mut buf = [0 as c_char; 8];
                // SAFETY: 8 writable bytes; `len` may be NULL.
                unsafe { dv_last_error_copy(buf.as_mut_ptr(), buf.len(), std::ptr::null_mut()) };
            }
        }
        thread_local! { static AT_EXIT: AtExit = const { AtExit }; }
        std::thread::spawn(|| {
            // Destructors run in reverse order: the record goes before AT_EXIT's drop runs.
            AT_EXIT.with(|_| {});
            set_last("dv_test", "a record to destroy");
        })
        .join()
        .expect("no panic at thread exit");
    }

    fn last() -> String {
        // SAFETY: dv_last_error returns a valid NUL-terminated string.
        unsafe { CStr::from_ptr(dv_last_error()) }.to_string_lossy().into_owned()
    }

    #[test]
    fn a_panic_becomes_internal_with_a_message() {
        let st = call("dv_test", || panic!("boom"));
        assert_eq!(st, dv_status_t::DV_ERROR_INTERNAL);
        assert!(last().contains("dv_test") && last().contains("boom"), "{}", last());
        let v = call_or("dv_test_value", 7, || -> i32 { panic!("again") });
        assert_eq!(v, 7);
        assert!(last().contains("again"));
    }

    #[test]
    fn errors_keep_their_kind_and_name_the_function() {
        let st = call("dv_thing", || Err(null("out")));
        assert_eq!(st, dv_status_t::DV_ERROR_NULL_ARGUMENT);
        assert_eq!(last(), "dv_thing: argument `out` is NULL");
        let mut buf = [0 as c_char; 8];
        let mut len = 0usize;
        // SAFETY: buf has 8 bytes; len is writable.
        let n = unsafe { dv_last_error_copy(buf.as_mut_ptr(), buf.len(), &mut len) };
        assert_eq!((n, len), (7, last().len()));
    }

    #[test]
    fn messages_advise_c_calls() {
        assert_eq!(
            in_c_terms("Call sync_host() before writing; clear_sync_state() drops it; found at modify_device()."),
            "Call dv_sync_host() before writing; dv_clear_sync_state() drops it; found at dv_modify_device()."
        );
        assert_eq!(in_c_terms("a.sync_host() x%modify_host() my_sync_host() sync_host"), "a.sync_host() x%modify_host() my_sync_host() sync_host");
        assert_eq!(in_c_terms("é sync_device()"), "é dv_sync_device()");
        assert_eq!(in_c_terms("sync_host()() f() ()modify_host() (clear_sync_state())"), "dv_sync_host()() f() ()dv_modify_host() (dv_clear_sync_state())");
        assert_eq!(in_c_terms("no call here"), "no call here");
    }

    #[test]
    fn a_binding_sets_the_last_error() {
        // SAFETY: NUL-terminated strings or NULL on purpose.
        unsafe {
            assert_eq!(dv_last_error_set(dv_status_t::DV_ERROR_RANK as i32, c"binding: wrong rank".as_ptr()), dv_status_t::DV_OK);
            assert_eq!(last(), "binding: wrong rank");
            assert_eq!(dv_last_error_set(dv_status_t::DV_ERROR_RANK as i32, std::ptr::null()), dv_status_t::DV_ERROR_NULL_ARGUMENT);
            assert_eq!(last(), "dv_last_error_set: argument `message` is NULL");
            assert_eq!(dv_last_error_set(0, c"x".as_ptr()), dv_status_t::DV_ERROR_INVALID_ARGUMENT);
            assert!(last().contains("`code` is 0"), "{}", last());
            assert_eq!(dv_last_error_set(999, c"x".as_ptr()), dv_status_t::DV_ERROR_INVALID_ARGUMENT);
        }
    }
}
