/**
 * The {@code file://} backend: locks between the processes of one host through OS file locks on one file per held
 * name in a directory. Entry point: {@link io.latchkey.file.FileLockClient}.
 */
package io.latchkey.file;
