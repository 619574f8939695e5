/** The file backend's machinery; not API. */
package io.latchkey.file.internal;
