package io.icebergscan.examples;

import java.time.LocalDate;

import io.icebergscan.planning.data.IcebergTable;
import org.jspecify.annotations.Nullable;

/**
 * A row of the governed demo table {@code demo.customers} ({@code DemoCustomers}), as {@link CustomerRepository}
 * reads it: {@code birthDate} maps the column {@code birth_date}, in snake case. A caller the catalog restricts gets
 * the email and the birth date masked.
 */
@IcebergTable("demo.customers")
record Customer(long id, String name, @Nullable String email, @Nullable LocalDate birthDate, String country) {
}
