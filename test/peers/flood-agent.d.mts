export function floodLine(tag: Record<string, unknown>, i: number, frame: number): string;
export function expectedFlood(n: number, tag?: Record<string, unknown>, frame?: number): string;
