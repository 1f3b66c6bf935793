/**
 * The schema validators generated at build time (scripts/gen-validators.js writes
 * dist/src/spec/schema-validators.js), installed into the checker so that a check does not compile
 * the ACP schemas when it starts. Loaded by URL: from the modules as compiled and from the bundles
 * beside them (the check's worker), it is the same file. Without it (a build that did not make it)
 * the schemas are compiled on first use, as before.
 */
import { installPrebuiltValidators, type PrebuiltFactory } from '../spec/schema.js';

const MODULE = new URL('../spec/schema-validators.js', import.meta.url).href;
let loading: Promise<boolean> | undefined;

/** Installs the prebuilt validators once; resolves false when the build made none. */
export function usePrebuiltValidators(): Promise<boolean> {
  loading ??= (import(MODULE) as Promise<{ default: PrebuiltFactory }>).then(
    (m) => {
      installPrebuiltValidators(m.default);
      return true;
    },
    (e: NodeJS.ErrnoException) => {
      if (e?.code === 'ERR_MODULE_NOT_FOUND') return false;
      throw e;
    },
  );
  return loading;
}
