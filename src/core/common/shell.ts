/** POSIX single-quoting: safe for every byte but NUL. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}
