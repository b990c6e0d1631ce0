! 16 OpenMP threads fail at once, on two DualViews whose messages differ in length
! (one caught by the module, one by the C library and rewritten in Fortran terms):
! every errmsg=, every dv_get_last_error_message and the other subroutine forms
! (get_label, dv_get_status_str) must give the thread's own text, whole. Built with the module's sources under AddressSanitizer (a message
! of another thread's length reads past its buffer), with default and 8-byte integers.
program threads_messages
  use dualview
  use omp_lib
  use, intrinsic :: iso_fortran_env, only: int64
  implicit none
  integer, parameter :: nthreads = 16, rounds = 4000
  type(dualview_t) :: a, b
  character(len=:), allocatable :: want_a, want_b
  integer :: stat, wrong, calls

  call a%create("short", DV_DTYPE_FLOAT64, [8], space=DV_SPACE_TEST_DEVICE)
  call b%create("a_much_longer_label_for_the_second_dualview", DV_DTYPE_INT32, [4, 4], space=DV_SPACE_TEST_DEVICE)
  call b%modify_host()
  ! The messages, asked once on this thread.
  if (a%extent(0, stat=stat, errmsg=want_a) /= 0 .or. stat /= DV_ERROR_OUT_OF_RANGE) &
    error stop "threads_messages: extent(0) is refused"
  call b%modify_device(stat=stat, errmsg=want_b)
  if (stat /= DV_ERROR_CONCURRENT_MODIFICATION) error stop "threads_messages: modify_device is refused"
  if (len(want_a) == len(want_b) .or. len(want_a) == 0 .or. index(want_b, "a%sync_device()") == 0) &
    error stop "threads_messages: two messages of different lengths, in Fortran terms"

  wrong = 0
  calls = 0
  call omp_set_num_threads(nthreads)
  !$omp parallel reduction(+:wrong, calls)
  call hammer(mod(int(omp_get_thread_num()), 2) == 0, wrong, calls)
  !$omp end parallel
  print '(a, i0, a, i0, a, i0, a)', "threads_messages: ", calls, " refused calls on ", nthreads, &
    " threads, ", wrong, " wrong messages"
  if (calls /= nthreads * rounds * 2) error stop "threads_messages: every thread ran"
  if (wrong /= 0) error stop "threads_messages: a thread read another thread's message"
  call a%destroy()
  call b%destroy()

contains

  ! rounds refusals on a (even threads) or b, each checked twice: errmsg= and the
  ! thread's last error in the subroutine form.
  subroutine hammer(even, wrong, calls)
    logical, intent(in) :: even
    integer, intent(inout) :: wrong, calls
    character(len=:), allocatable :: m, last, text
    integer :: i, st
    integer(int64) :: n
    do i = 1, rounds
      if (even) then
        n = a%extent(0, stat=st, errmsg=m)
        if (st /= DV_ERROR_OUT_OF_RANGE .or. m /= want_a .or. len(m) /= len(want_a)) wrong = wrong + 1
        call dv_get_last_error_message(last)
        if (last /= want_a .or. len(last) /= len(want_a)) wrong = wrong + 1
        call a%get_label(text)
        if (text /= "short" .or. len(text) /= 5) wrong = wrong + 1
      else
        call b%modify_device(stat=st, errmsg=m)
        if (st /= DV_ERROR_CONCURRENT_MODIFICATION .or. m /= want_b .or. len(m) /= len(want_b)) wrong = wrong + 1
        call dv_get_last_error_message(last)
        if (len(last) == 0 .or. index(last, "dv_modify_device") /= 1) wrong = wrong + 1
        call dv_get_status_str(st, text)
        if (index(text, "DV_ERROR_CONCURRENT_MODIFICATION") /= 1) wrong = wrong + 1
      end if
      calls = calls + 2
    end do
  end subroutine
end program
