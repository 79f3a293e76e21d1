/**
 * Puts the calling thread at the lowest CPU priority (nice 19), so a sandbox worker spinning on a script gets only
 * what the gateway's event loop leaves idle: on a small machine the loop otherwise shares cores with busy sandboxes
 * and can be descheduled for tens of milliseconds. Linux keeps nice per thread (NPTL), so this thread alone is
 * lowered and the gateway's own threads keep theirs. Best effort: on another OS or libc nothing changes.
 */
import { dlopen, FFIType } from "bun:ffi";

/** `gettid` system call numbers (glibc exposes no wrapper before 2.30). */
const SYS_GETTID: Partial<Record<string, number>> = { x64: 186, arm64: 178 };
const PRIO_PROCESS = 0;
const LOWEST = 19;

/** True when the thread now runs at nice 19. */
export function lowerThisThreadPriority(): boolean {
  const gettid = SYS_GETTID[process.arch];
  if (process.platform !== "linux" || gettid === undefined) return false;
  try {
    const libc = dlopen("libc.so.6", {
      setpriority: { args: [FFIType.i32, FFIType.u32, FFIType.i32], returns: FFIType.i32 },
      syscall: { args: [FFIType.i64], returns: FFIType.i64 },
    });
    try {
      const tid = Number(libc.symbols.syscall(gettid));
      return tid > 0 && libc.symbols.setpriority(PRIO_PROCESS, tid, LOWEST) === 0;
    } finally {
      libc.close();
    }
  } catch {
    return false;
  }
}
