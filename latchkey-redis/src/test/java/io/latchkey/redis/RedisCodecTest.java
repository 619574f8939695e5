package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The connections' codec writes exactly what Lettuce's UTF-8 codec writes, with an exact size. */
class RedisCodecTest {

    @ParameterizedTest
    @ValueSource(strings = {"", "orders:42", "é✓ü", "锁-🔒-ключ", "unpaired \uD83D surrogate", "\uDC00", "x\u0000y"})
    void encodesEveryTextAsLettucesUtf8CodecDoesWithItsExactSize(String text) {
        assertThat(RedisConnections.CODEC.estimateSize(text)).isEqualTo(written(text));
        assertThat(command(RedisConnections.CODEC, text)).isEqualTo(command(StringCodec.UTF8, text));
        assertThat(RedisConnections.CODEC.decodeValue(RedisConnections.CODEC.encodeValue(text)))
                .isEqualTo(StringCodec.UTF8.decodeValue(StringCodec.UTF8.encodeValue(text)));
    }

    private static int written(String text) {
        ByteBuf buf = Unpooled.buffer();
        RedisConnections.CODEC.encodeValue(text, buf);
        return buf.readableBytes();
    }

    /** The bytes of an EVALSHA with {@code text} as key and as argument, as sent on the wire. */
    private static String command(RedisCodec<String, String> codec, String text) {
        CommandArgs<String, String> args = new CommandArgs<>(codec).add("sha").add(1).addKey(text).addValue(text)
                .addValue("plain");
        ByteBuf buf = Unpooled.buffer();
        new Command<>(CommandType.EVALSHA, new IntegerOutput<>(codec), args).encode(buf);
        return buf.toString(StandardCharsets.ISO_8859_1);
    }
}
