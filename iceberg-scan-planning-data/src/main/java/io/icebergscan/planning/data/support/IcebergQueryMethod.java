package io.icebergscan.planning.data.support;

import java.lang.reflect.Method;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

import io.icebergscan.planning.data.AtSnapshot;
import io.icebergscan.planning.data.TableSnapshot;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.data.projection.ProjectionFactory;
import org.springframework.data.repository.core.RepositoryMetadata;
import org.springframework.data.repository.query.Parameter;
import org.springframework.data.repository.query.Parameters;
import org.springframework.data.repository.query.ParametersSource;
import org.springframework.data.repository.query.QueryCreationException;
import org.springframework.data.repository.query.QueryMethod;

/**
 * A query method of an Iceberg repository: a {@link TableSnapshot} parameter is not bound to the predicate but pins
 * the snapshot read, as {@link AtSnapshot @AtSnapshot} does.
 */
final class IcebergQueryMethod extends QueryMethod {

  private final Method method;
  private final TableSnapshot pinned;

  IcebergQueryMethod(Method method, RepositoryMetadata metadata, ProjectionFactory factory) {
    super(method, metadata, factory, IcebergParameters::new);
    this.method = method;
    this.pinned = pinned(method);
  }

  /** The repository's method. */
  Method method() {
    return this.method;
  }

  private TableSnapshot pinned(Method method) {
    AtSnapshot at = method.getAnnotation(AtSnapshot.class);
    if (at == null) {
      return TableSnapshot.current();
    }
    int set = (at.id() >= 0 ? 1 : 0) + (at.ref().isEmpty() ? 0 : 1) + (at.asOf().isEmpty() ? 0 : 1);
    if (set != 1) {
      throw QueryCreationException.create(this, "@AtSnapshot names exactly one of id, ref and asOf, but it names "
          + set);
    }
    if (at.id() >= 0) {
      return TableSnapshot.id(at.id());
    }
    if (!at.ref().isEmpty()) {
      return TableSnapshot.ref(at.ref());
    }
    try {
      return TableSnapshot.asOf(Instant.parse(at.asOf()));
    }
    catch (DateTimeParseException notAnInstant) {
      throw QueryCreationException.create(this, "@AtSnapshot(asOf = \"" + at.asOf() + "\") is not an ISO-8601 instant "
          + "such as 2026-01-01T00:00:00Z");
    }
  }

  /** The snapshot a call with these arguments reads: its {@code TableSnapshot} argument's, else the pinned one. */
  TableSnapshot snapshot(@Nullable Object[] arguments) {
    int index = ((IcebergParameters) getParameters()).snapshotIndex();
    return index >= 0 && arguments[index] != null ? (TableSnapshot) arguments[index] : this.pinned;
  }

  static final class IcebergParameters extends Parameters<IcebergParameters, IcebergParameter> {

    IcebergParameters(ParametersSource source) {
      super(source, parameter -> new IcebergParameter(parameter, source));
    }

    private IcebergParameters(List<IcebergParameter> parameters) {
      super(parameters);
    }

    @Override
    protected IcebergParameters createFrom(List<IcebergParameter> parameters) {
      return new IcebergParameters(parameters);
    }

    int snapshotIndex() {
      for (IcebergParameter parameter : this) {
        if (parameter.isSnapshot()) {
          return parameter.getIndex();
        }
      }
      return -1;
    }
  }

  static final class IcebergParameter extends Parameter {

    private final boolean snapshot;

    IcebergParameter(MethodParameter parameter, ParametersSource source) {
      super(parameter, source.getDomainTypeInformation());
      this.snapshot = TableSnapshot.class.equals(parameter.getParameterType());
    }

    boolean isSnapshot() {
      return this.snapshot;
    }

    @Override
    public boolean isSpecialParameter() {
      return this.snapshot || super.isSpecialParameter();
    }
  }
}
