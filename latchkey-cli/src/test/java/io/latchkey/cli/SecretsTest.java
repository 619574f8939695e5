package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SecretsTest {

    @Test
    void masksUserInfoPasswords() {
        assertThat(Secrets.mask("redis://admin:pa55word@h:6379/0")).isEqualTo("redis://admin:****@h:6379/0");
        assertThat(Secrets.mask("jdbc:postgresql://bob:pa55word@db/app")).isEqualTo("jdbc:postgresql://bob:****@db/app");
        assertThat(Secrets.mask("zookeeper://u:pa55word@a:1,b:2/chroot")).isEqualTo("zookeeper://u:****@a:1,b:2/chroot");
    }

    @Test
    void aBareRedisUserInfoIsAPassword() {
        assertThat(Secrets.mask("rediss://pa55word@h:6380")).isEqualTo("rediss://****@h:6380");
        assertThat(Secrets.mask("redis://:pa55word@h")).isEqualTo("redis://:****@h");
        assertThat(Secrets.mask("jdbc:postgresql://bob@db/app")).isEqualTo("jdbc:postgresql://bob@db/app");
    }

    @Test
    void masksPasswordParameters() {
        assertThat(Secrets.mask("jdbc:mariadb://db/app?user=bob&password=pa55word&ssl=true"))
                .isEqualTo("jdbc:mariadb://db/app?user=bob&password=****&ssl=true");
        assertThat(Secrets.mask("jdbc:h2:mem:x;USER=sa;PASSWORD=pa55word")).isEqualTo("jdbc:h2:mem:x;USER=sa;PASSWORD=****");
    }

    @Test
    void remembersRegisteredPasswordsWhereverTheyAppear() {
        Secrets.register("redis://admin:s%40fe-Pw@h:6379");
        assertThat(Secrets.mask("WRONGPASS for s@fe-Pw and s%40fe-Pw")).isEqualTo("WRONGPASS for **** and ****");
    }
}
