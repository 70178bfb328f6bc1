/**
 * The wire's version: the envelope, the verbs' inputs and their JSON results. Both ends must agree;
 * a remote umbel of another one is refused naming both (ProtocolMismatchError). A file of its own,
 * with no zod: `umbel --version` prints it and loads nothing else.
 */
export const PROTOCOL = 1;
