package io.latchkey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class LockNameTemplateTest {

    record Transfer(String from, Account to) {
    }

    public static final class Account {
        public String getId() {
            return "acc-9";
        }

        public boolean isFrozen() {
            return false;
        }
    }

    @Test
    void replacesParametersAndAccessorPaths() {
        LockNameTemplate t = LockNameTemplate.parse("transfer:{t.from}->{t.to.id}:{t.to.frozen}:{n}",
                List.of("t", "n"));
        assertEquals("transfer:a-1->acc-9:false:7", t.render(new Transfer("a-1", new Account()), 7));
        assertFalse(t.isConstant());
    }

    @Test
    void keepsTextBracesAndNulls() {
        assertEquals("{x}:null", LockNameTemplate.parse("{{x}}:{id}", List.of("id")).render((Object) null));
        assertTrue(LockNameTemplate.parse("report", List.of()).isConstant());
        assertEquals("report", LockNameTemplate.parse("report", List.of()).render());
    }

    @Test
    void rejectsBadTemplatesWhenParsed() {
        assertThrows(IllegalArgumentException.class, () -> LockNameTemplate.parse("order:{orderId", List.of("orderId")));
        assertThrows(IllegalArgumentException.class, () -> LockNameTemplate.parse("order:}", List.of()));
        assertThrows(IllegalArgumentException.class, () -> LockNameTemplate.parse("order:{}", List.of("a")));
        assertThrows(IllegalArgumentException.class, () -> LockNameTemplate.parse("order:{a b}", List.of("a")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LockNameTemplate.parse("order:{id}", List.of("orderId")));
        assertTrue(e.getMessage().contains("'{id}' names no parameter"), e.getMessage());
        assertTrue(e.getMessage().contains("[orderId]"), e.getMessage());
    }

    @Test
    void aMissingAccessorIsNamedWhenRendered() {
        LockNameTemplate t = LockNameTemplate.parse("{t.nope}", List.of("t"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> t.render(new Transfer("a", null)));
        assertTrue(e.getMessage().contains("nope()"), e.getMessage());
    }
}
