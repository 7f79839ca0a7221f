//! A job loop run on the calling thread and, when one of rayon's pool threads gets to it in
//! time, on that thread too, without ever waiting for the pool thread to start.
//!
//! `rayon::join` or a rayon scope would wait at the end until the pool thread has run its half,
//! even when the calling thread has already done all the jobs: on a loaded machine (the proxy
//! under traffic, or a shared small box) that wait is a scheduling delay, and two threads
//! measured slower than one (benches/RESULTS.md, "two threads"). Here the
//! pool thread must *enter* before the caller has finished; once the caller has finished, it
//! closes the gate, and a pool thread that arrives later leaves without touching the work. The
//! caller waits only for a pool thread that is inside the work, which then ends as soon as the job
//! it holds is done (the work is a loop over a shared job counter, see `Detector`). That wait
//! remains: a pool thread preempted inside a job on a saturated machine still delays the caller
//! (benches/RESULTS.md).
//!
//! The pool thread's closure must be `'static` (it may run after this call has returned), but the
//! work borrows the caller's text and slots. The gate makes that sound: the work is reached only
//! through the gate, entering needs the gate open, and the caller does not return (nor unwind)
//! before it has closed the gate and no pool thread is inside. A panic inside the work on the
//! pool thread is caught and raised again on the calling thread, as in the serial path.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// The work with its lifetime erased (see the module doc for why it is only called while valid).
struct Work(*const (dyn Fn() + Sync + 'static));

// SAFETY: the pointee is `Sync` (calling it from another thread is allowed), and the pointer is
// only dereferenced while the gate guarantees the pointee is alive.
unsafe impl Send for Work {}
unsafe impl Sync for Work {}

#[derive(Default)]
struct State {
    /// The caller has finished; nobody may enter any more.
    closed: bool,
    /// Pool threads inside the work (0 or 1).
    inside: usize,
    /// The work panicked on the pool thread (its job's results are missing).
    panicked: Option<Box<dyn std::any::Any + Send>>,
}

struct Gate {
    state: Mutex<State>,
    left: Condvar,
    work: Work,
}

fn lock(gate: &Gate) -> MutexGuard<'_, State> {
    gate.state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Closes the gate and waits until no pool thread is inside; runs on return and on unwinding.
struct Closer<'g>(&'g Gate);

impl Drop for Closer<'_> {
    fn drop(&mut self) {
        let mut state = lock(self.0);
        state.closed = true;
        while state.inside > 0 {
            state = self
                .0
                .left
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Runs `work` on this thread and, if a pool thread is free before it returns, on that thread
/// too. `work` must be safe to run on both at once and to return on either when nothing is left.
pub(crate) fn run(work: &(dyn Fn() + Sync)) {
    let ptr: *const (dyn Fn() + Sync + '_) = work;
    // SAFETY: only the lifetime bound of the trait object changes; the pointer is dereferenced
    // by the pool thread only between entering an open gate and leaving it, and `Closer` keeps
    // this function (and so the borrow of `work`) from ending until the gate is closed and left.
    let ptr: *const (dyn Fn() + Sync + 'static) = unsafe { std::mem::transmute(ptr) };
    let gate = Arc::new(Gate {
        state: Mutex::new(State::default()),
        left: Condvar::new(),
        work: Work(ptr),
    });
    let helper = Arc::clone(&gate);
    rayon::spawn(move || {
        {
            let mut state = lock(&helper);
            if state.closed {
                return;
            }
            state.inside += 1;
        }
        // SAFETY: the gate was open, so the caller is still inside `run` and `work` is alive
        // until this thread leaves (below) and the caller's `Closer` sees it gone.
        let result = catch_unwind(AssertUnwindSafe(|| unsafe { (*helper.work.0)() }));
        let mut state = lock(&helper);
        if let Err(panic) = result {
            state.panicked = Some(panic);
        }
        state.inside -= 1;
        helper.left.notify_all();
    });
    {
        let _closer = Closer(&gate);
        work();
    }
    let panicked = lock(&gate).panicked.take();
    if let Some(panic) = panicked {
        resume_unwind(panic);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_job_runs_once() {
        for _ in 0..200 {
            let next = AtomicUsize::new(0);
            let done: Vec<AtomicUsize> = (0..50).map(|_| AtomicUsize::new(0)).collect();
            run(&|| loop {
                let job = next.fetch_add(1, Ordering::Relaxed);
                let Some(slot) = done.get(job) else { break };
                slot.fetch_add(1, Ordering::Relaxed);
            });
            assert!(done.iter().all(|d| d.load(Ordering::Relaxed) == 1));
        }
    }

    #[test]
    fn a_panic_on_either_thread_reaches_the_caller() {
        for _ in 0..20 {
            let next = AtomicUsize::new(0);
            let r = catch_unwind(|| {
                run(&|| loop {
                    let job = next.fetch_add(1, Ordering::Relaxed);
                    if job == 3 {
                        panic!("job 3");
                    }
                    if job > 10 {
                        break;
                    }
                    std::thread::yield_now();
                })
            });
            assert!(r.is_err());
        }
    }
}
