/**
 * The {@code file://} backend: locks between the processes of one host through OS file locks on one file per held
 * name in a directory, and semaphores, permit-expirable semaphores and count-down latches as one state file per
 * name, changed under the directory's OS lock. Entry point: {@link io.latchkey.file.FileLockClient}.
 */
package io.latchkey.file;
