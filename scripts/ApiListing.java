import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public API of one module as text: every public or protected type and member of its exported packages, as
 * javap prints them. The exported packages are the unqualified exports of module-info.class, or, for a jar without a
 * descriptor, every package except *.internal. Classes whose name starts with '$' are left out: annotation processors
 * write them (Micronaut's bean definitions), nobody calls them.
 *
 * <pre>java scripts/ApiListing.java CLASSES_DIR API_FILE check|update</pre>
 *
 * check fails (exit 1) when the listing differs from API_FILE, update rewrites API_FILE. The build runs check in
 * verify; after an intended API change: ./mvnw -q verify -DskipTests -Dlatchkey.api.update=true, then commit api/.
 */
public final class ApiListing {
  public static void main(String[] args) throws IOException {
    if (args.length != 3 || !Set.of("check", "update").contains(args[2])) {
      throw new IllegalArgumentException("usage: ApiListing CLASSES_DIR API_FILE check|update");
    }
    Path classes = Path.of(args[0]);
    Path apiFile = Path.of(args[1]);
    if (!Files.isDirectory(classes)) {
      return; // a pom-packaged project: no classes, no API
    }
    String listing = listing(classes);
    if (args[2].equals("update")) {
      Files.createDirectories(apiFile.toAbsolutePath().getParent());
      Files.writeString(apiFile, listing, StandardCharsets.UTF_8);
      System.out.println("[api] wrote " + apiFile);
      return;
    }
    String committed = Files.exists(apiFile) ? Files.readString(apiFile, StandardCharsets.UTF_8) : "";
    if (!committed.equals(listing)) {
      List<String> was = committed.lines().collect(Collectors.toList());
      List<String> now = listing.lines().collect(Collectors.toList());
      System.err.println("[api] the public API differs from " + apiFile + ":");
      was.stream().filter(l -> !now.contains(l)).limit(40).forEach(l -> System.err.println("  - " + l));
      now.stream().filter(l -> !was.contains(l)).limit(40).forEach(l -> System.err.println("  + " + l));
      System.err.println("[api] if the change is intended: ./mvnw -q verify -DskipTests -Dlatchkey.api.update=true, and commit api/");
      System.exit(1);
    }
  }

  static String listing(Path classes) throws IOException {
    Set<String> exported = exportedPackages(classes);
    List<String> files = new ArrayList<>();
    try (Stream<Path> all = Files.walk(classes)) {
      all.filter(p -> p.toString().endsWith(".class"))
          .filter(p -> !p.getFileName().toString().equals("module-info.class"))
          .filter(p -> !p.getFileName().toString().equals("package-info.class"))
          // written by annotation processors (Micronaut's bean definitions, $Foo$Definition): not API anyone calls
          .filter(p -> !p.getFileName().toString().startsWith("$"))
          .filter(p -> exported.contains(packageOf(classes, p)))
          .map(Path::toString).sorted().forEach(files::add);
    }
    StringBuilder out = new StringBuilder();
    out.append("# exported packages: ").append(String.join(", ", exported)).append('\n');
    if (files.isEmpty()) {
      return out.toString();
    }
    ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow(() -> new IllegalStateException("no javap in this JDK"));
    StringWriter text = new StringWriter();
    List<String> javapArgs = new ArrayList<>(List.of("-protected"));
    javapArgs.addAll(files);
    int rc = javap.run(new PrintWriter(text), new PrintWriter(System.err), javapArgs.toArray(String[]::new));
    if (rc != 0) {
      throw new IllegalStateException("javap failed: " + rc);
    }
    // one block per class: keep the public and protected ones, without javap's "Compiled from" line
    boolean keep = false;
    for (String line : text.toString().split("\n")) {
      if (line.startsWith("Compiled from")) {
        continue;
      }
      if (!line.startsWith(" ") && !line.equals("}")) {
        keep = line.startsWith("public ") || line.startsWith("protected ");
      }
      if (keep) {
        out.append(line).append('\n');
      }
    }
    return out.toString();
  }

  static Set<String> exportedPackages(Path classes) throws IOException {
    Path descriptor = classes.resolve("module-info.class");
    Set<String> exported = new TreeSet<>();
    if (Files.exists(descriptor)) {
      try (InputStream in = Files.newInputStream(descriptor)) {
        ModuleDescriptor.read(in).exports().stream().filter(e -> !e.isQualified()).forEach(e -> exported.add(e.source()));
      }
      return exported;
    }
    try (Stream<Path> all = Files.walk(classes)) {
      all.filter(p -> p.toString().endsWith(".class")).map(p -> packageOf(classes, p))
          .filter(p -> !p.endsWith(".internal") && !p.contains(".internal.")).forEach(exported::add);
    }
    return exported;
  }

  static String packageOf(Path root, Path classFile) {
    Path parent = root.relativize(classFile).getParent();
    return parent == null ? "" : parent.toString().replace(java.io.File.separatorChar, '.');
  }
}
