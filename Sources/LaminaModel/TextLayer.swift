import LaminaGeometry
import LaminaGraphics

/// A layer that draws a string (`CATextLayer`), through the 2D context (Pango): drawn
/// again when a property changes or its bounds do, at its `contentsScale` (on a window,
/// the window's scale).
@MainActor
open class TextLayer: Layer {
    public required init() {
        super.init()
        needsDisplayOnBoundsChange = true
    }

    /// `CATextLayer.alignmentMode`.
    public enum AlignmentMode: String, Sendable, CaseIterable {
        /// The script's own (left here: Lamina lays out left-to-right text).
        case natural, left, right, center, justified
        var textAlignment: TextAlignment {
            switch self {
            case .natural, .left: return .left
            case .right: return .right
            case .center: return .center
            case .justified: return .justified
            }
        }
    }

    /// The text (nil or empty: nothing drawn).
    public var string: String? { didSet { if string != oldValue { setNeedsDisplay() } } }
    /// The typeface (family, weight, slant); its size is `fontSize`.
    public var font = Font(family: "DejaVu Sans") { didSet { if font != oldValue { setNeedsDisplay() } } }
    /// In points (`CATextLayer.fontSize`, 36 by default).
    public var fontSize = 36.0 { didSet { if fontSize != oldValue { setNeedsDisplay() } } }
    /// The text's colour (white by default, as Core Animation's).
    public var foregroundColor: Color = .white { didSet { if foregroundColor != oldValue { setNeedsDisplay() } } }
    public var alignmentMode: AlignmentMode = .natural { didSet { if alignmentMode != oldValue { setNeedsDisplay() } } }
    /// Where a line too long for the bounds is cut with an ellipsis (`.none`: clipped).
    /// Applies to lines that are not wrapped.
    public var truncationMode: TextTruncation = .none { didSet { if truncationMode != oldValue { setNeedsDisplay() } } }
    /// Wrap to the bounds' width (`CATextLayer.isWrapped`; false: one line per paragraph).
    public var isWrapped = false { didSet { if isWrapped != oldValue { setNeedsDisplay() } } }

    open override func draw(in context: GraphicsContext) {
        guard let string, !string.isEmpty else { return }
        var f = font
        f.size = fontSize
        if isWrapped {
            context.draw(string, in: bounds, font: f, color: foregroundColor, alignment: alignmentMode.textAlignment)
        } else {
            context.drawLine(string, in: bounds, font: f, color: foregroundColor, alignment: alignmentMode.textAlignment,
                             truncation: truncationMode)
        }
    }
}
