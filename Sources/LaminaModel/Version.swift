import LaminaValues
/// Lamina's version (`lamina --version`, `LAMINA_VERSION` in the C header).
public enum LaminaVersion {
    public static let string = "0.5.0"
}
