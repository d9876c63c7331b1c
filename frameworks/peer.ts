// The agent frameworks are optional peer dependencies: a subpath loads its SDK when it is imported, and one that is
// not installed is named, with the command that installs it, in the one line of the failure.

/** Runs `load` (a literal `import()` of package `name`, which `subpath` needs); fails in one line when it is missing. */
export async function peer<T>(name: string, subpath: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Only the package itself missing: a broken install of it fails as it is, naming what it lacks.
    const missing = (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && (error as Error).message.includes(`'${name}'`);
    if (!missing) throw error;
    throw new Error(`Cannot load ${subpath}: it needs the package ${name}, which is not installed; install it with npm install ${name}`);
  }
}
