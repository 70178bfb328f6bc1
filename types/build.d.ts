// Compile-time constants set with `bun build --define` (scripts/build-info.ts); undefined from source.
declare const UMBEL_BUILD_COMMIT: string | undefined;
