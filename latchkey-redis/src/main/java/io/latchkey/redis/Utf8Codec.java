package io.latchkey.redis;

import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.codec.ToByteBufEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;

/**
 * The codec of the backend's connections: UTF-8 text, like Lettuce's {@link StringCodec#UTF8}, but with the exact
 * encoded size of each key and argument. Lettuce writes an argument whose size its codec only estimates into a
 * temporary buffer of its own first and copies it (a pooled buffer taken and released per argument, every 128th with
 * the stack trace of Netty's leak detection); with the exact size it writes the argument straight into the outgoing
 * buffer. A group of script calls ({@link ScriptGroups}) has several dozen arguments, so this is most of what encoding
 * a call costs the client. The count is Netty's ({@link ByteBufUtil#utf8Bytes}) and matches what
 * {@link ByteBufUtil#writeUtf8} writes, an unpaired surrogate included. Decoding is {@link StringCodec#UTF8}'s.
 */
final class Utf8Codec implements RedisCodec<String, String>, ToByteBufEncoder<String, String> {

    static final Utf8Codec INSTANCE = new Utf8Codec();

    private static final StringCodec TEXT = StringCodec.UTF8;

    private Utf8Codec() {
    }

    @Override
    public String decodeKey(ByteBuffer bytes) {
        return TEXT.decodeKey(bytes);
    }

    @Override
    public String decodeValue(ByteBuffer bytes) {
        return TEXT.decodeValue(bytes);
    }

    @Override
    public ByteBuffer encodeKey(String key) {
        return TEXT.encodeKey(key);
    }

    @Override
    public ByteBuffer encodeValue(String value) {
        return TEXT.encodeValue(value);
    }

    @Override
    public void encodeKey(String key, ByteBuf target) {
        write(key, target);
    }

    @Override
    public void encodeValue(String value, ByteBuf target) {
        write(value, target);
    }

    @Override
    public int estimateSize(Object keyOrValue) {
        return keyOrValue instanceof CharSequence text ? ByteBufUtil.utf8Bytes(text) : 0;
    }

    @Override
    public boolean isEstimateExact() {
        return true;
    }

    private static void write(String text, ByteBuf target) {
        if (text != null) {
            ByteBufUtil.writeUtf8(target, text);
        }
    }
}
