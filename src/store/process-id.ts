import { readFileSync } from 'node:fs';

/**
 * A process's identity beyond its pid, so a pid the system gave to a later process is not taken
 * for the writer: on Linux the boot id and the start time in clock ticks since boot (immune to
 * changes of the wall clock); null where unknown (the process is gone, or not Linux).
 */
export function processStartId(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime); the name in field 2 may hold spaces and parentheses, so count from its end.
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    if (!start || !/^\d+$/.test(start)) return null;
    return `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}:${start}`;
  } catch {
    return null;
  }
}
