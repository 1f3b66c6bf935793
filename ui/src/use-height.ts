/** The client height of an element, kept up to date with a ResizeObserver (for virtualized lists). */
import { useLayoutEffect, useState } from 'preact/hooks';

export function useClientHeight(ref: { current: HTMLElement | null }, remountKey: unknown = null): number {
  const [height, setHeight] = useState(600);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    setHeight(el.clientHeight);
    return () => ro.disconnect();
  }, [remountKey]);
  return height;
}
