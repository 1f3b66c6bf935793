export async function runTapCli(_argv: string[]): Promise<void> {
  throw new Error('tap not implemented yet');
}
