package io.latchkey.redis;

import io.lettuce.core.codec.StringCodec;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;

/**
 * The codec of the backend's connections: Lettuce's UTF-8 text codec, which writes text with Netty's UTF-8 encoder,
 * but telling the exact encoded size of each key and argument. Lettuce writes an argument whose size its codec only
 * estimates into a temporary buffer of its own first and copies it (a pooled buffer taken and released per argument,
 * every 128th with the stack trace of Netty's leak detection); with the exact size it writes the argument straight into
 * the outgoing buffer. A group of script calls ({@link ScriptGroups}) has several dozen arguments, so this was most of
 * what encoding a call cost the client. The count is Netty's ({@link ByteBufUtil#utf8Bytes}), which matches what its
 * encoder writes, an unpaired surrogate included.
 */
final class Utf8Codec extends StringCodec {

    static final Utf8Codec INSTANCE = new Utf8Codec();

    private Utf8Codec() {
        super(StandardCharsets.UTF_8);
    }

    @Override
    public int estimateSize(Object keyOrValue) {
        return keyOrValue instanceof CharSequence text ? ByteBufUtil.utf8Bytes(text) : 0;
    }

    @Override
    public boolean isEstimateExact() {
        return true;
    }
}
